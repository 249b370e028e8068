#include "teacher_forced.h"

#include "models/decoder_state.h"

namespace test {

std::vector<float> teacher_forced_logits(const models::Transformer& model,
                                         const models::EncodedBatch& encoded, int sentence,
                                         const std::vector<int32_t>& tokens) {
  return teacher_forced_logits(model, encoded, sentence, tokens,
                               models::attention_cache_type(model.weights()));
}

std::vector<float> teacher_forced_logits(const models::Transformer& model,
                                         const models::EncodedBatch& encoded, int sentence,
                                         const std::vector<int32_t>& tokens, models::CacheType caches) {
  const int vocab = model.config().tgt_vocab_size;
  const int n_sentences = static_cast<int>(encoded.lengths.size());
  const int steps = static_cast<int>(tokens.size());
  models::DecoderState state(model, encoded, n_sentences, steps, nullptr, caches);
  state.start(n_sentences);
  state.select_rows({sentence});
  std::vector<float> logits(static_cast<size_t>(steps) * vocab);
  for (int t = 0; t < steps; ++t) {
    state.step({tokens[t]}, {sentence}, t);
    state.logits(0, 1, logits.data() + static_cast<size_t>(t) * vocab);
  }
  return logits;
}

}  // namespace test
