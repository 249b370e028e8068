// Builds a Shortlist from parallel text already cut into the model's pieces. Lives beside the model
// rather than the tokenizer: it needs only ids, and the vocabulary sizes the model declares.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/shortlist.h"

namespace models {

// How a (source piece, target piece) pair is ranked, from the number of sentence pairs that hold s, t
// and both: p(t|s) = c(s,t) / c(s), or Dice = 2 c(s,t) / (c(s) + c(t)), which also penalises target
// pieces frequent everywhere (those the frequent list keeps anyway).
enum class ShortlistScore { kConditional, kDice };

// The defaults are the best BLEU for the size on Multi30k val with the bundled model (bench/latest/experiments.md).
struct ShortlistBuildOptions {
  int k = 75;            // target pieces kept per source piece
  int n_frequent = 300;  // most frequent target pieces every batch keeps
  ShortlistScore score = ShortlistScore::kDice;
};

// sources[i] and targets[i]: sentence pair i's ids (each below its vocabulary; others are skipped).
Shortlist build_shortlist(const std::vector<std::vector<int32_t>>& sources,
                          const std::vector<std::vector<int32_t>>& targets, int src_vocab, int tgt_vocab,
                          const ShortlistBuildOptions& options);

}  // namespace models
