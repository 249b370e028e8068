#include "cli/io/attention_json.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"

namespace cli {

namespace {

constexpr size_t kRowsPerFlush = 256;  // a pipe reader sees the rows as they come

std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// "[w0,w1,...]" with each weight at its shortest exact decimal form.
std::string row_text(const float* row, int cols) {
  std::string s = "[";
  char number[32];
  for (int c = 0; c < cols; ++c) {
    if (c > 0) s += ',';
    const auto end = std::to_chars(number, number + sizeof number, row[c]).ptr;
    s.append(number, end);
  }
  return s + "]";
}

// One kind, [layer][head][rows][cols], a row per line; `last` ends the object.
void write_kind(const char* name, const std::vector<std::vector<float>>& kind, int heads, int rows, int cols,
                const AttentionSelection& selection, bool last, OutputTarget& out) {
  out.write_line(std::string("\"") + name + "\": [", LineEnding::kLf);
  const size_t cells = static_cast<size_t>(rows) * cols;
  size_t written = 0;
  bool first_layer = true;
  for (int l = 0; l < static_cast<int>(kind.size()); ++l) {
    if (selection.layer >= 0 && l != selection.layer) continue;
    out.write_line(first_layer ? "[" : ",[", LineEnding::kLf);
    first_layer = false;
    bool first_head = true;
    for (int h = 0; h < heads; ++h) {
      if (selection.head >= 0 && h != selection.head) continue;
      out.write_line(first_head ? "[" : ",[", LineEnding::kLf);
      first_head = false;
      for (int r = 0; r < rows; ++r) {
        const float* row = kind[l].data() + h * cells + static_cast<size_t>(r) * cols;
        out.write_line(row_text(row, cols) + (r + 1 < rows ? "," : ""), LineEnding::kLf);
        if (++written % kRowsPerFlush == 0) out.flush();
      }
      out.write_line("]", LineEnding::kLf);
    }
    out.write_line("]", LineEnding::kLf);
  }
  out.write_line(last ? "]}" : "],", LineEnding::kLf);
}

// Weights of one kind that the selection writes.
uint64_t kind_weights(const std::vector<std::vector<float>>& kind, int heads, int rows, int cols,
                      const AttentionSelection& selection) {
  uint64_t layers = 0;
  for (int l = 0; l < static_cast<int>(kind.size()); ++l)
    layers += selection.layer < 0 || l == selection.layer;
  return layers * static_cast<uint64_t>(selection.head < 0 ? heads : 1) * static_cast<uint64_t>(rows) *
         static_cast<uint64_t>(cols);
}

}  // namespace

uint64_t json_weight_count(const models::AttentionMatrices& m, const AttentionSelection& selection) {
  return kind_weights(m.cross, m.n_heads, m.target_len, m.source_len, selection) +
         kind_weights(m.encoder, m.n_heads, m.source_len, m.source_len, selection) +
         kind_weights(m.decoder, m.n_heads, m.target_len, m.target_len, selection);
}

void write_attention_json(const pipeline::AttentionTranslation& t, const AttentionSelection& selection,
                          OutputTarget& out) {
  const models::AttentionMatrices& m = t.attention;
  const uint64_t weights = json_weight_count(m, selection);
  if (weights > kMaxJsonWeights) {
    throw core::UsageError("--format json: this sentence (" + std::to_string(m.source_len) + " source and " +
                           std::to_string(m.target_len) + " target pieces) has " + std::to_string(weights) +
                           " weights, more than the " + std::to_string(kMaxJsonWeights) +
                           " one output may hold: choose a layer and a head (--layer, --head)" +
                           " or a shorter sentence");
  }
  out.write_line("{\"source_tokens\": " + json_text(t.source_tokens) + ",", LineEnding::kLf);
  out.write_line("\"target_tokens\": " + json_text(t.target_tokens) + ",", LineEnding::kLf);
  out.write_line("\"translation\": " + json_text(t.text) + ",", LineEnding::kLf);
  if (selection.layer >= 0)
    out.write_line("\"layer\": " + std::to_string(selection.layer) + ",", LineEnding::kLf);
  if (selection.head >= 0)
    out.write_line("\"head\": " + std::to_string(selection.head) + ",", LineEnding::kLf);
  write_kind("cross", m.cross, m.n_heads, m.target_len, m.source_len, selection, false, out);
  write_kind("encoder", m.encoder, m.n_heads, m.source_len, m.source_len, selection, false, out);
  write_kind("decoder", m.decoder, m.n_heads, m.target_len, m.target_len, selection, true, out);
}

}  // namespace cli
