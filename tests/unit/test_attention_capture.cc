// Recorded attention: the PyTorch reference's weights within 1e-4 on the golden fixtures, rows summing to 1,
// and beam search keeping each hypothesis's own weights through beam reordering.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/decoder_state.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

models::AttentionRequest everything() {
  models::AttentionRequest r;
  r.cross = r.decoder = r.encoder = true;
  return r;
}

// The recorded attention of `generated` (EOS excluded), teacher-forced through the incremental decoder:
// steps feed the start token and then each generated token.
models::AttentionMatrices replay(const models::Transformer& model, const std::vector<int32_t>& source,
                                 const std::vector<int32_t>& generated,
                                 const models::AttentionRequest& request) {
  const models::EncodedBatch encoded = model.encode({source}, request.encoder);
  std::vector<int32_t> fed = {model.description().tokens.decoder_start};
  fed.insert(fed.end(), generated.begin(), generated.end());
  const models::AttentionRequest decoder_only = request;
  models::DecoderState state(model, encoded, 1, static_cast<int>(fed.size()), &decoder_only);
  state.start(1);
  std::vector<float> logits(model.config().tgt_vocab_size);
  for (size_t p = 0; p < fed.size(); ++p) {
    state.step({fed[p]}, {0}, static_cast<int>(p));
    state.logits(0, 1, logits.data());
  }
  models::AttentionMatrices m = state.attention(0, generated);
  if (request.encoder) m.encoder = encoded.attention[0];
  return m;
}

// Checks one kind: [layer] of [heads, rows, cols] against the reference's [layer][head][row][col].
void check_against(const std::vector<std::vector<float>>& ours, const nlohmann::json& reference, int rows,
                   int cols) {
  REQUIRE(ours.size() == reference.size());
  for (size_t l = 0; l < ours.size(); ++l) {
    const size_t heads = reference[l].size();
    REQUIRE(ours[l].size() == heads * rows * cols);
    for (size_t h = 0; h < heads; ++h) {
      for (int i = 0; i < rows; ++i) {
        double sum = 0.0;
        for (int j = 0; j < cols; ++j) {
          const float value = ours[l][(h * rows + i) * cols + j];
          sum += value;
          REQUIRE(value == Approx(reference[l][h][i][j].get<double>()).margin(1e-4));
        }
        REQUIRE(sum == Approx(1.0).margin(1e-5));
      }
    }
  }
}

}  // namespace

TEST_CASE("recorded attention matches the reference on the golden fixtures", "[attention][golden]") {
  for (const char* name : {"paper", "opus", "gelu-table"}) {
    INFO(name);
    const std::string dir = test::fixtures_dir() + "/" + name;
    const nlohmann::json reference = nlohmann::json::parse(test::read_file(dir + "/attention.json"));
    const models::Transformer model(dir + "/model");
    const auto source = reference["source"].get<std::vector<int32_t>>();
    const auto fed = reference["tokens"].get<std::vector<int32_t>>();
    const std::vector<int32_t> generated(fed.begin() + 1, fed.end());
    const models::AttentionMatrices m = replay(model, source, generated, everything());
    const int t = static_cast<int>(fed.size()), s = static_cast<int>(source.size());
    REQUIRE(m.target_len == t);
    REQUIRE(m.source_len == s);
    REQUIRE(m.n_heads == model.config().n_heads);
    check_against(m.encoder, reference["encoder"], s, s);
    check_against(m.cross, reference["cross"], t, s);
    check_against(m.decoder, reference["decoder"], t, t);
  }
}

TEST_CASE("one layer and one kind are recorded when asked for, the others left empty", "[attention]") {
  const std::string dir = test::fixtures_dir() + "/opus";
  const nlohmann::json reference = nlohmann::json::parse(test::read_file(dir + "/attention.json"));
  const models::Transformer model(dir + "/model");
  const auto fed = reference["tokens"].get<std::vector<int32_t>>();
  models::AttentionRequest request;
  request.cross = true;
  request.layer = 1;
  const models::AttentionMatrices m =
      replay(model, reference["source"].get<std::vector<int32_t>>(), {fed.begin() + 1, fed.end()}, request);
  REQUIRE(m.cross.size() == 2);
  CHECK(m.cross[0].empty());
  CHECK_FALSE(m.cross[1].empty());
  for (const auto& layer : m.decoder) CHECK(layer.empty());
  CHECK(m.encoder.empty());
}

TEST_CASE("beam search keeps each hypothesis's own attention", "[attention]") {
  // Every n-best hypothesis of a batch of sentences, recorded during beam search (beams reordered, dropped
  // and copied), equals the same tokens teacher-forced alone.
  const std::string dir = test::fixtures_dir() + "/opus";
  const nlohmann::json golden = nlohmann::json::parse(test::read_file(dir + "/golden.json"));
  const pipeline::Translator translator(dir + "/model");
  const auto sources = golden["sources"].get<std::vector<std::vector<int32_t>>>();
  pipeline::TranslateOptions options = translator.defaults();
  options.beam_size = 4;
  options.n_best = 4;
  const models::AttentionRequest request = everything();
  std::vector<std::vector<models::AttentionMatrices>> attention;
  const auto hyps = translator.translate_ids(sources, options, {}, &request, &attention);
  REQUIRE(attention.size() == sources.size());
  int finished_by_eos = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    REQUIRE(attention[i].size() == hyps[i].size());
    for (size_t k = 0; k < hyps[i].size(); ++k) {
      INFO("sentence " << i << ", hypothesis " << k);
      const auto& tokens = hyps[i][k].tokens;
      const models::AttentionMatrices& m = attention[i][k];
      const models::AttentionMatrices alone = replay(translator.model(), sources[i], tokens, request);
      // The step that chose EOS is recorded unless the hypothesis ended at its length limit.
      REQUIRE((m.target_len == static_cast<int>(tokens.size()) + 1 ||
               m.target_len == static_cast<int>(tokens.size())));
      finished_by_eos += m.target_len == static_cast<int>(tokens.size()) + 1;
      const size_t rows = m.target_len;
      for (size_t l = 0; l < m.cross.size(); ++l) {
        const size_t s = sources[i].size();
        for (size_t h = 0; h < static_cast<size_t>(m.n_heads); ++h) {
          for (size_t r = 0; r < rows; ++r) {
            for (size_t j = 0; j < s; ++j) {
              REQUIRE(m.cross[l][(h * rows + r) * s + j] ==
                      Approx(alone.cross[l][(h * alone.target_len + r) * s + j]).margin(1e-6));
            }
            for (size_t j = 0; j <= r; ++j) {
              REQUIRE(
                  m.decoder[l][(h * rows + r) * rows + j] ==
                  Approx(alone.decoder[l][(h * alone.target_len + r) * alone.target_len + j]).margin(1e-6));
            }
          }
        }
      }
      // Equal up to rounding: on the BLAS path the batch's shape picks OpenBLAS's kernel (docs/speed.md).
      REQUIRE(m.encoder.size() == alone.encoder.size());
      for (size_t l = 0; l < m.encoder.size(); ++l) {
        REQUIRE(m.encoder[l].size() == alone.encoder[l].size());
        for (size_t k = 0; k < m.encoder[l].size(); ++k)
          REQUIRE(m.encoder[l][k] == Approx(alone.encoder[l][k]).margin(1e-6));
      }
    }
  }
  CHECK(finished_by_eos > 0);
}
