#include "pipeline/attention_translation.h"

#include "core/error.h"

namespace pipeline {

AttentionTranslation translate_with_attention(const Translator& translator, const std::string& text,
                                              const TranslateOptions& options,
                                              const models::AttentionRequest& request) {
  TranslateOptions o = options;
  o.n_best = 1;
  translator.check(o);
  const std::vector<int32_t> source = translator.source_ids(text, o);
  const int positions = translator.model().config().max_positions;
  if (static_cast<int>(source.size()) > positions) {
    throw core::UsageError("the text is " + std::to_string(source.size()) +
                           " tokens; the model takes at most " + std::to_string(positions) +
                           ": give one sentence");
  }
  std::vector<std::vector<models::AttentionMatrices>> attention;
  const auto hyps = translator.translate_ids({source}, o, {}, &request, &attention);
  const core::Hypothesis& best = hyps.at(0).at(0);
  AttentionTranslation out;
  out.text = translator.tokenizer().decode(best.tokens);
  out.attention = std::move(attention.at(0).at(0));
  const models::SpecialTokens& ids = translator.model().description().tokens;
  const auto name_eos = [&](std::vector<std::string>& pieces, const std::vector<int32_t>& of) {
    for (size_t i = 0; i < of.size(); ++i) {
      if (of[i] == ids.eos) pieces[i] = "</s>";
    }
  };
  out.source_tokens = translator.tokenizer().source_pieces(source);
  name_eos(out.source_tokens, source);
  std::vector<int32_t> chosen = best.tokens;
  if (out.attention.target_len > static_cast<int>(chosen.size())) chosen.push_back(ids.eos);
  out.target_tokens = translator.tokenizer().target_pieces(chosen);
  name_eos(out.target_tokens, chosen);
  return out;
}

}  // namespace pipeline
