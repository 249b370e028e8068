// Ties tokenizer, model, batching and search together: lines of text in, translations out.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/search.h"
#include "models/segmenter.h"
#include "models/transformer.h"
#include "tokenizer/sentence_splitter.h"
#include "tokenizer/tokenizer.h"

namespace models {

// Unset values (-1 / NaN) take the model's decoding defaults from model.json.
struct TranslateOptions {
  int beam_size = -1;
  float length_penalty = -1e30f;  // sentinel: model default
  float max_length_a = -1.0f;
  int max_length_b = -1;
  int max_length = -1;
  int n_best = 1;
  int batch_size = 32;           // sentences per forward pass
  std::string target_lang;       // prepends ">>xx<<" for multilingual OPUS-MT models
  bool split_sentences = true;   // false: each line is one sentence (--no-split)
  std::string source_lang;       // the sentence splitter's language; "" = the model's source_lang
  int max_sentence_tokens = -1;  // longer sentences are cut at clauses/spaces; -1 = kDefaultMaxSentenceTokens
  int max_batch_tokens = 0;      // > 0: batches of at most this many source tokens instead of batch_size
  // Sampling instead of beam search (beam_size 1; n_best = independent samples). Each sentence draws from
  // streams of the seed, its line's number in the whole input (first_line + its index in `lines`) and its
  // place in the line, so batches, windows and threads do not change what it samples.
  core::SamplingOptions sampling;
  uint64_t first_line = 0;
};

// One line's own decoding controls (`--input-format jsonl`).
struct LineControls {
  std::string prefix;            // target text the line's first sentence is forced to start with
  std::optional<int> beam_size;  // this line's beam instead of TranslateOptions::beam_size
};

// Per-source controls of translate_ids: each empty, or one entry per source.
struct SourceControls {
  std::vector<uint64_t> sampling_keys;         // keys of the sampling streams (empty: the source's index)
  std::vector<std::vector<int32_t>> prefixes;  // forced target ids the hypotheses start with
};

// Three times the longest sentence a model like the bundled one sees in training; capped by max_positions.
constexpr int kDefaultMaxSentenceTokens = 200;

struct Translation {
  std::vector<std::string> texts;  // n_best, best first ("" for empty input)
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
};

class Translator {
 public:
  explicit Translator(const std::string& model_dir);

  const Transformer& model() const { return *model_; }
  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }

  // One Translation per input line, same order, in three steps: each line is split into sentences (cut
  // further when over max_sentence_tokens), the sentences of all lines are translated in length-sorted
  // batches, and each line's translations are rejoined with the whitespace between its source sentences
  // (leading and trailing whitespace kept). A line of several segments has one hypothesis, their best
  // joined, scored by their mean (with sampling, n_best such joins: sample k of every segment). Blank
  // lines come back as they are without running the model. Warnings (a sentence cut for length) go to
  // `warnings` when given. `controls`, when given, holds one LineControls per line (prefixes must pass
  // prefix_ids).
  std::vector<Translation> translate(const std::vector<std::string>& lines, const TranslateOptions& options,
                                     std::vector<TranslateWarning>* warnings = nullptr,
                                     const std::vector<LineControls>* controls = nullptr) const;

  // Source ids (incl. EOS) -> hypotheses; the core of translate(), exposed for tests.
  std::vector<std::vector<core::Hypothesis>> translate_ids(const std::vector<std::vector<int32_t>>& sources,
                                                           const TranslateOptions& options,
                                                           const SourceControls& controls = {}) const;

  // Target ids of a forced prefix. Throws core::Error when the target vocabulary cannot spell it exactly
  // (the translation would not start with it) or it leaves no room in the model's positions.
  std::vector<int32_t> prefix_ids(const std::string& prefix) const;

  // Generated-token limit (EOS included) for a source of n ids.
  int max_output_length(int n_source_ids, const TranslateOptions& options) const;

  // Resolves unset options to the model's defaults and validates them (throws core::UsageError). A
  // --target-lang must be one of the model's language tags, or its target_lang when it has none (then
  // nothing is prepended).
  TranslateOptions resolve(const TranslateOptions& options) const;

  // The model's ">>xx<<" target tags (multilingual models), sorted, without the brackets.
  const std::vector<std::string>& language_tags() const { return language_tags_; }

 private:
  std::vector<int32_t> source_ids(const std::string& line, const TranslateOptions& options) const;
  // Step 2 of translate(): every segment's hypotheses; lines of another beam size in runs of their own.
  std::vector<std::vector<core::Hypothesis>> translate_segments(
      const SegmentedLines& segmented, const TranslateOptions& options,
      const std::vector<LineControls>* controls) const;
  void validate_target_lang(TranslateOptions& options) const;  // clears it when nothing is to be prepended
  // The splitter for a language, built once (ICU iterators take a while to build).
  const tokenizer::SentenceSplitter& splitter(const std::string& language) const;

  std::unique_ptr<Transformer> model_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::vector<std::string> language_tags_;
  mutable std::mutex splitters_mutex_;
  mutable std::map<std::string, std::unique_ptr<tokenizer::SentenceSplitter>> splitters_;
};

}  // namespace models
