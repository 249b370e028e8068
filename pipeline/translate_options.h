// How to translate: the options every line shares, and the controls one line may carry of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/search.h"
#include "pipeline/glossary.h"
#include "pipeline/translate_progress.h"

namespace pipeline {

// Three times the longest sentence a model like the bundled one sees in training; capped by max_positions.
constexpr int kDefaultMaxSentenceTokens = 200;
// The options table's bound on --replicas; the commands narrow it to the cores present.
constexpr int kMaxReplicas = 256;

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
  // Translators on the one loaded model, each with core::num_threads() threads, taking batches from one
  // queue (pipeline/translate_batches.cc); never changes a translation.
  int replicas = 1;
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
  // replaced as on_low_confidence says ("keep", "source", "empty", "mark": pipeline/sentence_checks.h).
  float min_confidence = 0.0f;
  std::string on_low_confidence = "keep";
  // The output layer restricted to the batch's lexical shortlist (models/shortlist.h): "on", "off", or
  // "auto": on when the model folder holds a shortlist.bin.
  std::string shortlist = "auto";
  // Terms the translation must use (pipeline/glossary.h): a glossary file, and --term's "SRC=TGT" one a
  // line; `glossary_terms` is both loaded (load_glossary), which translate() does itself when null.
  std::string glossary;
  std::string terms;
  std::shared_ptr<const Glossary> glossary_terms;
};

// What a front end does around the translator, declared in the same options table (pipeline/option_table)
// and never read by the translator.
struct FrontOptions {
  // The input's document format (documents/document_format.h); the translator itself reads plain lines.
  std::string format = "auto";
  bool copy_other = false;     // directory mode copies the files it does not translate, unchanged
  bool flag_warnings = false;  // the CLI warns FILE:LINE per flagged line
};

// The glossary file and terms of `options` in one glossary (null when it names none); throws
// core::UsageError naming the file and line, or the term, that is wrong.
std::shared_ptr<const Glossary> load_glossary(const TranslateOptions& options);

// One line's own decoding controls (`--input-format jsonl`).
struct LineControls {
  std::string prefix;            // target text the line's first sentence is forced to start with
  std::optional<int> beam_size;  // this line's beam instead of TranslateOptions::beam_size
  Glossary glossary;             // this line's terms, over the run's
};

// Per-source controls of translate_ids: each empty, or one entry per source.
struct SourceControls {
  std::vector<uint64_t> sampling_keys;         // keys of the sampling streams (empty: the source's index)
  std::vector<std::vector<int32_t>> prefixes;  // forced target ids the hypotheses start with
  std::vector<std::vector<core::Constraint>> constraints;  // target terms each source's output must hold
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

}  // namespace pipeline
