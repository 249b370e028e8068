// Hard word alignments from cross-attention, in Marian's format ("s-t" pairs, 0-based, source first).
// Words are the whitespace-separated words of a line; a SentencePiece piece starting with "▁" begins one.
#pragma once

#include <string>
#include <vector>

#include "models/attention_capture.h"

namespace pipeline {

// The word each piece belongs to, counting from 0: a piece starting with "▁" begins a word (a bare "▁"
// begins the word of the piece after it). An empty piece belongs to no word (-1): EOS, a language tag.
std::vector<int> piece_words(const std::vector<std::string>& pieces);

struct WordLink {
  int source = 0;
  int target = 0;
};

// One layer's cross-attention: head `head`'s, or (head -1) the average over its heads: [target_len,
// source_len].
std::vector<float> alignment_weights(const models::AttentionMatrices& attention, int layer, int head);

// Each target word linked to exactly one source word: the one whose pieces take the most of the attention
// summed over the target word's pieces (the lowest on ties). weights: [rows, cols], row i = target piece i,
// column j = source piece j; target_words / source_words: piece_words() of the two sides (rows beyond
// target_words, such as the EOS step, are not read). No links when the source has no word.
std::vector<WordLink> align_words(const std::vector<float>& weights, int cols,
                                  const std::vector<int>& target_words, const std::vector<int>& source_words);

// "0-0 1-2 2-1": Marian's pairs, source word first, in target order.
std::string format_alignment(const std::vector<WordLink>& links);

}  // namespace pipeline
