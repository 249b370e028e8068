// Ties tokenizer, model, batching and search together: lines of text in, translations out.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/search.h"
#include "models/attention_capture.h"
#include "models/segmenter.h"
#include "models/transformer.h"
#include "models/translate_progress.h"
#include "models/word_alignment.h"
#include "tokenizer/sentence_splitter.h"
#include "tokenizer/tokenizer.h"

namespace models {

// Three times the longest sentence a model like the bundled one sees in training; capped by max_positions.
constexpr int kDefaultMaxSentenceTokens = 200;

// Every value is used as it stands: Translator::defaults() holds the model's, which callers adjust.
struct TranslateOptions {
  int beam_size = 4;
  float length_penalty = 1.0f;
  float max_length_a = 0.0f;  // generated tokens <= a * source tokens + b, and <= max_length
  int max_length_b = 512;
  int max_length = 512;
  int n_best = 1;
  int batch_size = 32;          // sentences per forward pass
  std::string target_lang;      // a multilingual model's tag, prepended as ">>xx<<"; "" for none
  bool split_sentences = true;  // false: each line is one sentence
  std::string source_lang;      // the sentence splitter's language; "" = language-neutral rules only
  int max_sentence_tokens = kDefaultMaxSentenceTokens;  // longer sentences are cut at clauses/spaces
  int max_batch_tokens = 0;  // > 0: batches of at most this many source tokens instead of batch_size
  // Sampling instead of beam search (beam_size 1; n_best = independent samples). Each sentence draws from
  // streams of the seed, its line's number in the whole input (first_line + its index in `lines`) and its
  // place in the line, so batches, windows and threads do not change what it samples.
  core::SamplingOptions sampling;
  uint64_t first_line = 0;
  bool alignment = false;    // Translation::alignments: each hypothesis's word alignment
  int alignment_layer = -1;  // the decoder layer whose cross-attention aligns words; -1: the last
  // When set, translate() reports its progress there (a display reads it from another thread).
  TranslateProgress* progress = nullptr;
  float repetition_penalty = 1.0f;  // loop guards (core::SearchOptions, docs/search.md); 1 and 0: off
  int no_repeat_ngram_size = 0;
  bool word_scores = false;  // Translation::word_scores
  // Translations whose confidence is below min_confidence (0: none) are flagged `low-confidence` and
  // replaced as on_low_confidence says ("keep", "source", "empty", "mark": models/sentence_checks.h).
  float min_confidence = 0.0f;
  std::string on_low_confidence = "keep";
  bool flag_warnings = false;  // the CLI warns FILE:LINE per flagged line
  // The input's document format (documents/document_format.h); the translator itself reads plain lines.
  std::string format = "auto";
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

// An option the model cannot take. `option` is the TranslateOptions field; what() reads "beam_size must
// be in 1..256", and rule() is the part after the name, for callers that name options their own way.
class OptionError : public core::UsageError {
 public:
  OptionError(const std::string& option, const std::string& rule)
      : core::UsageError(option + " " + rule), option_(option), rule_(rule) {}
  const std::string& option() const { return option_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string option_, rule_;
};

struct Translation {
  std::vector<std::string> texts;  // n_best, best first ("" for empty input)
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
  // With TranslateOptions::alignment, one per hypothesis: every word of its text linked to one word of
  // the line (whitespace-separated words, 0-based), in target order.
  std::vector<std::vector<WordLink>> alignments;
  std::vector<float> raw_scores;  // sum of the log-probabilities (for a line of several sentences, theirs)
  // Per hypothesis, the short codes of what went wrong: "length-limit" (a sentence ended at its max length,
  // not by the model's EOS), failure_flags' codes, "low-confidence" (below min_confidence).
  std::vector<std::vector<std::string>> flags;
  // Per hypothesis, sentence_confidence of all its tokens in [0, 1]; 1 for a blank line, 0 with no score.
  std::vector<float> confidences;
  // With TranslateOptions::word_scores, per hypothesis: one log-probability per word of its text
  // (whitespace-separated), the sum of its pieces' (EOS's counts in the last word).
  std::vector<std::vector<float>> word_scores;
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

  // Source ids (incl. EOS) -> hypotheses; the core of translate(), exposed for tests. With `capture`,
  // `attention` receives each hypothesis's attention, shaped like the result.
  std::vector<std::vector<core::Hypothesis>> translate_ids(
      const std::vector<std::vector<int32_t>>& sources, const TranslateOptions& options,
      const SourceControls& controls = {}, const AttentionRequest* capture = nullptr,
      std::vector<std::vector<AttentionMatrices>>* attention = nullptr) const;

  // Target ids of a forced prefix. Throws core::Error when the target vocabulary cannot spell it exactly
  // (the translation would not start with it) or it leaves no room in the model's positions.
  std::vector<int32_t> prefix_ids(const std::string& prefix) const;

  // Generated-token limit (EOS included) for a source of n ids.
  int max_output_length(int n_source_ids, const TranslateOptions& options) const;

  // The model's decoding defaults (model.json), its source language, and a sentence-token limit of
  // kDefaultMaxSentenceTokens or the model's positions if fewer.
  TranslateOptions defaults() const;
  // Throws OptionError for a value out of range for this model. A target_lang must be one of the model's
  // language tags; a model without tags takes none.
  void check(const TranslateOptions& options) const;

  // One sentence's source ids: the target tag (when options has one), its pieces, EOS when the model adds
  // one. options: resolved.
  std::vector<int32_t> source_ids(const std::string& line, const TranslateOptions& options) const;

  // The model's ">>xx<<" target tags (multilingual models), sorted, without the brackets.
  const std::vector<std::string>& language_tags() const { return language_tags_; }

 private:
  // Step 2 of translate(): every segment's hypotheses; lines of another beam size in runs of their own.
  // With `capture`, `attention` receives each hypothesis's attention, shaped like the result.
  std::vector<std::vector<core::Hypothesis>> translate_segments(
      const SegmentedLines& segmented, const TranslateOptions& options,
      const std::vector<LineControls>* controls, const AttentionRequest* capture,
      std::vector<std::vector<AttentionMatrices>>* attention) const;

  // The splitter for a language, built once (ICU iterators take a while to build).
  const tokenizer::SentenceSplitter& splitter(const std::string& language) const;

  std::unique_ptr<Transformer> model_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::vector<std::string> language_tags_;
  mutable std::mutex splitters_mutex_;
  mutable std::map<std::string, std::unique_ptr<tokenizer::SentenceSplitter>> splitters_;
};

}  // namespace models
