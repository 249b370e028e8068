// The decoding flags of `nmt translate` as given: empty when unset, resolved once against the model.
#pragma once

#include <optional>
#include <string>

#include "models/translator.h"

namespace cli {

struct TranslateFlags {
  std::optional<int> beam_size;
  std::optional<float> length_penalty;
  std::optional<float> max_length_a;
  std::optional<int> max_length_b;
  std::optional<int> max_length;
  std::optional<int> max_sentence_tokens;
  std::optional<std::string> source_lang;  // empty: the model's
  int n_best = 1;
  int batch_size = 32;
  int max_batch_tokens = 0;        // 0: batches of batch_size sentences
  core::SamplingOptions sampling;  // enabled: beam_size defaults to 1 instead of the model's
  std::string target_lang;         // the model's own target language means no tag
  bool split_sentences = true;
  bool alignment = false;              // --alignment
  std::optional<int> alignment_layer;  // the decoder layer that aligns (default: the last)
  std::optional<float> repetition_penalty;
  std::optional<int> no_repeat_ngram_size;
  bool word_scores = false;  // --word-scores
};

// The model's defaults (Translator::defaults) with every flag given put over them, checked against the
// model: a value it cannot take is a core::UsageError naming the flag.
models::TranslateOptions resolve_translate_flags(const TranslateFlags& flags,
                                                 const models::Translator& translator);

}  // namespace cli
