// Ties tokenizer, model, batching and search together: lines of text in, translations out.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/search.h"
#include "models/transformer.h"
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
  int batch_size = 32;      // sentences per forward pass
  std::string target_lang;  // prepends ">>xx<<" for multilingual OPUS-MT models
};

struct Translation {
  std::vector<std::string> texts;  // n_best, best first ("" for empty input)
  std::vector<float> scores;
  std::vector<std::vector<int32_t>> ids;
  // Non-empty when the line (or a piece of it) got no translation because the model computed no finite
  // score (non-finite weights or activations): its text is empty and the caller reports this.
  std::string warning;
};

class Translator {
 public:
  explicit Translator(const std::string& model_dir);

  const Transformer& model() const { return *model_; }
  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }

  // One Translation per input line, same order. Blank lines give "" without running the model;
  // lines longer than the model's positions are split into pieces, translated, and rejoined.
  std::vector<Translation> translate(const std::vector<std::string>& lines,
                                     const TranslateOptions& options) const;

  // Source ids (incl. EOS) -> hypotheses; the core of translate(), exposed for tests.
  std::vector<std::vector<core::Hypothesis>> translate_ids(const std::vector<std::vector<int32_t>>& sources,
                                                           const TranslateOptions& options) const;

  // Generated-token limit (EOS included) for a source of n ids.
  int max_output_length(int n_source_ids, const TranslateOptions& options) const;

  // Resolves unset options to the model's defaults and validates them (throws core::UsageError).
  TranslateOptions resolve(const TranslateOptions& options) const;

 private:
  std::vector<int32_t> source_ids(const std::string& line, const TranslateOptions& options) const;

  std::unique_ptr<Transformer> model_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
};

}  // namespace models
