// Ties tokenizer, model, batching and search together: lines of text in, translations out.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/search.h"
#include "models/attention_capture.h"
#include "models/shortlist.h"
#include "models/transformer.h"
#include "pipeline/segmenter.h"
#include "pipeline/translate_options.h"
#include "pipeline/translation.h"
#include "pipeline/word_alignment.h"
#include "tokenizer/sentence_splitter.h"
#include "tokenizer/tokenizer.h"

namespace pipeline {

class Translator {
 public:
  explicit Translator(const std::string& model_dir);
  virtual ~Translator() = default;

  const models::Transformer& model() const { return *model_; }
  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }

  // One Translation per input line, same order, in three steps: each line is split into sentences (cut
  // further when over max_sentence_tokens), the sentences of all lines are translated in length-sorted
  // batches, and each line's translations are rejoined with the whitespace between its source sentences
  // (leading and trailing whitespace kept). A line of several segments has one hypothesis, their best
  // joined, scored by their mean (with sampling, n_best such joins: sample k of every segment). Blank
  // lines come back as they are without running the model. Warnings (a sentence cut for length) go to
  // `warnings` when given. `controls`, when given, holds one LineControls per line (prefixes must pass
  // prefix_ids).
  // A pivot translator (pipeline/pivot_translator.h) runs another model first.
  virtual std::vector<Translation> translate(const std::vector<std::string>& lines,
                                             const TranslateOptions& options,
                                             std::vector<TranslateWarning>* warnings = nullptr,
                                             const std::vector<LineControls>* controls = nullptr) const;

  // Source ids (incl. EOS) -> hypotheses; the core of translate(), exposed for tests. With `capture`,
  // `attention` receives each hypothesis's attention, shaped like the result.
  std::vector<std::vector<core::Hypothesis>> translate_ids(
      const std::vector<std::vector<int32_t>>& sources, const TranslateOptions& options,
      const SourceControls& controls = {}, const models::AttentionRequest* capture = nullptr,
      std::vector<std::vector<models::AttentionMatrices>>* attention = nullptr) const;

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

  // Whether translations into the target language (the options' tag or the model's) join without spaces.
  bool joins_unspaced(const TranslateOptions& options) const;

  // The model's ">>xx<<" target tags (multilingual models), sorted, without the brackets.
  const std::vector<std::string>& language_tags() const { return language_tags_; }

 protected:
  // A translator on `other`'s loaded model and tokenizer (shared, not copied).
  struct ShareModel {};
  Translator(const Translator& other, ShareModel);

 private:
  // Step 2 of translate(): every segment's hypotheses; lines of another beam size in runs of their own.
  // With `capture`, `attention` receives each hypothesis's attention, shaped like the result.
  std::vector<std::vector<core::Hypothesis>> translate_segments(
      const SegmentedLines& segmented, const TranslateOptions& options,
      const std::vector<LineControls>* controls, const models::AttentionRequest* capture,
      std::vector<std::vector<models::AttentionMatrices>>* attention) const;

  // Each segment's glossary terms (the run's and its line's) as target-id constraints: one list per
  // segment, or none at all when no segment has a term.
  std::vector<std::vector<core::Constraint>> segment_constraints(
      const SegmentedLines& segmented, const TranslateOptions& options,
      const std::vector<LineControls>* controls) const;

  // The splitter for a language, built once (ICU iterators take a while to build).
  const tokenizer::SentenceSplitter& splitter(const std::string& language) const;

  // The model folder's shortlist when options.shortlist asks for it (loaded on first use), else null.
  const models::Shortlist* shortlist(const TranslateOptions& options) const;

  std::string model_dir_;
  std::shared_ptr<models::Transformer> model_;
  std::shared_ptr<tokenizer::Tokenizer> tokenizer_;
  std::vector<std::string> language_tags_;
  mutable std::mutex splitters_mutex_;
  mutable std::map<std::string, std::unique_ptr<tokenizer::SentenceSplitter>> splitters_;
  mutable std::mutex shortlist_mutex_;
  mutable std::unique_ptr<models::Shortlist> shortlist_;
};

}  // namespace pipeline
