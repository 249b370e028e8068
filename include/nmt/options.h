// How to translate: the options table's pipeline rows (pipeline/option_table.cc, `nmt help translate`),
// each optional. Unset means the model's default (model.json's "decoding", as `nmt info` shows) or the
// command line's default; a set value is checked against the model when a call uses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nmt {

struct Options {
  std::optional<int> beam_size;         // 1 = greedy
  std::optional<float> length_penalty;  // score = log-prob / length^length_penalty
  std::optional<int> max_length;        // generated tokens, EOS included
  std::optional<float> max_length_a;    // generated tokens <= a * source tokens + b
  std::optional<int> max_length_b;
  std::optional<int> n_best;            // hypotheses per line, best first
  std::optional<int> batch_size;        // sentences per batch
  std::optional<int> max_batch_tokens;  // > 0: batches of at most this many source tokens
  std::optional<int> sampling_top_k;    // any sampling option set samples instead of searching
  std::optional<float> sampling_top_p;
  std::optional<float> sampling_temperature;
  std::optional<uint64_t> seed;  // sampling's seed (unset: a random one)
  std::optional<float> repetition_penalty;
  std::optional<int> no_repeat_ngram_size;
  std::optional<bool> word_scores;  // Hypothesis::word_scores
  std::optional<bool> alignment;    // Hypothesis::alignment
  std::optional<int> alignment_layer;
  std::optional<std::string> target_lang;        // a multilingual model's tag
  std::optional<std::string> source_lang;        // the sentence splitter's language
  std::optional<bool> split_sentences;           // false: each line is one sentence
  std::optional<int> max_sentence_tokens;        // longer sentences are cut at clauses, then spaces
  std::optional<float> min_confidence;           // below it: flagged "low-confidence"
  std::optional<std::string> on_low_confidence;  // "keep", "source", "empty" or "mark"
  std::optional<std::string> shortlist;          // "auto", "on" or "off"
  std::optional<std::string> glossary;           // a glossary file: terms the translation must use
  std::optional<std::string> terms;              // "SOURCE=TARGET" terms, one a line
};

}  // namespace nmt
