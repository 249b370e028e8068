// One sentence translated with its attention recorded: what `nmt attention` draws or writes.
#pragma once

#include <string>
#include <vector>

#include "models/attention_capture.h"
#include "pipeline/translator.h"

namespace pipeline {

struct AttentionTranslation {
  std::string text;                        // the translation
  std::vector<std::string> source_tokens;  // source pieces, "</s>" for EOS
  std::vector<std::string> target_tokens;  // one per decoder step: the piece it chose, "</s>" for EOS
  models::AttentionMatrices attention;
};

// Translates `text` as one sentence (no sentence splitting; over the model's positions is a UsageError)
// and records `request`'s attention of the best hypothesis. options: complete (Translator::defaults()).
AttentionTranslation translate_with_attention(const Translator& translator, const std::string& text,
                                              const TranslateOptions& options,
                                              const models::AttentionRequest& request);

}  // namespace pipeline
