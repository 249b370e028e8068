// `nmt attention --format json`: the weights written as they are formatted, one matrix row per line, so
// memory holds one row of text however long the sentence.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/io/output_target.h"
#include "pipeline/attention_translation.h"

namespace cli {

// Which layers and heads are written: -1 for all (as --layer/--head).
struct AttentionSelection {
  int layer = -1;
  int head = -1;
};

// The most weights one --format json writes (about 10 bytes of text each): a 1,000-piece sentence through
// every layer and head of a model exceeds it, one layer and head (--layer, --head) does not.
constexpr uint64_t kMaxJsonWeights = uint64_t{1} << 24;

// How many weights write_attention_json writes for `t` and `selection`.
uint64_t json_weight_count(const models::AttentionMatrices& m, const AttentionSelection& selection);

// {"source_tokens", "target_tokens", "translation", ["layer": N,] ["head": N,] "cross":
// [layer][head][target][source], "encoder": [layer][head][source][source], "decoder":
// [layer][head][target][target]}; with a selection only those layers/heads, and "layer"/"head" say which.
void write_attention_json(const pipeline::AttentionTranslation& t, const AttentionSelection& selection,
                          OutputTarget& out);

}  // namespace cli
