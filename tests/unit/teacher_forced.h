// Decoder logits for a given target prefix, through the one decoder step the search uses.
#pragma once

#include <cstdint>
#include <vector>

#include "models/attention_cache.h"
#include "models/transformer.h"

namespace test {

// Feeds `tokens` (decoder start first) to a fresh DecoderState, one step each, for sentence `sentence`
// of `encoded`: logits [tokens.size(), tgt_vocab], row t after token t. A row with no cache shared with
// another, so it is what reordered and shared caches must reproduce.
std::vector<float> teacher_forced_logits(const models::Transformer& model,
                                         const models::EncodedBatch& encoded, int sentence,
                                         const std::vector<int32_t>& tokens);
// The same with decoder caches of `caches` type instead of the model's own.
std::vector<float> teacher_forced_logits(const models::Transformer& model,
                                         const models::EncodedBatch& encoded, int sentence,
                                         const std::vector<int32_t>& tokens, models::CacheType caches);

}  // namespace test
