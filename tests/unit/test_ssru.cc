// The SSRU decoder (models/ssru_cells.h): model.json's decoder_recurrence, and the recurrent state
// following its hypothesis as the search copies and reorders rows. Parity with Marian itself is
// tests/marian_student_check.sh.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "models/convert/convert_common.h"
#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_architecture.h"
#include "models/decoder_state.h"
#include "models/model_config.h"
#include "models/ssru_cells.h"
#include "models/transformer.h"
#include "pipeline/attention_translation.h"
#include "pipeline/translator.h"
#include "teacher_forced.h"
#include "test_support.h"

namespace {

models::ModelDescription ssru_description() {
  models::ModelDescription d = test::small_description();
  d.config.decoder_recurrence = models::DecoderRecurrence::kSsru;
  return d;
}

}  // namespace

TEST_CASE("model.json's decoder_recurrence: ssru round-trips, an unknown value names the field", "[ssru]") {
  const models::ModelDescription d = ssru_description();
  nlohmann::json j = models::description_to_json(d);
  REQUIRE(j["config"]["decoder_recurrence"] == "ssru");
  REQUIRE(models::parse_description(j, "model.json").config.decoder_recurrence ==
          models::DecoderRecurrence::kSsru);
  // Self-attention, the default, is not written, so such a model.json reads as before.
  REQUIRE(!models::description_to_json(test::small_description())["config"].contains("decoder_recurrence"));
  j["config"]["decoder_recurrence"] = "lstm";
  REQUIRE_THROWS_WITH(models::parse_description(j, "model.json"),
                      Catch::Contains("model.json") && Catch::Contains("config.decoder_recurrence"));
}

TEST_CASE("model.json's attention_rounding: marian round-trips, an unknown value names the field", "[ssru]") {
  models::ModelDescription d = ssru_description();
  d.config.attention_rounding = models::AttentionRounding::kMarian;
  nlohmann::json j = models::description_to_json(d);
  REQUIRE(j["config"]["attention_rounding"] == "marian");
  REQUIRE(models::parse_description(j, "model.json").config.attention_rounding ==
          models::AttentionRounding::kMarian);
  // nmt's rounding, the default, is not written.
  REQUIRE(!models::description_to_json(ssru_description())["config"].contains("attention_rounding"));
  j["config"]["attention_rounding"] = "ctranslate2";
  REQUIRE_THROWS_WITH(models::parse_description(j, "model.json"),
                      Catch::Contains("model.json") && Catch::Contains("config.attention_rounding"));
}

TEST_CASE("an SSRU decoder's rows carry their own state through copies and reorders", "[ssru]") {
  test::TempDir dir;
  const models::ModelDescription d = ssru_description();
  test::write_random_model(dir.path(), d, 11);
  const models::Transformer model(dir.path());
  const int vocab = d.config.tgt_vocab_size;
  const int32_t start = d.tokens.decoder_start;
  const auto encoded = model.encode({{7, 8, 9, d.tokens.eos}});
  models::DecoderState state(model, encoded, 3, 8);
  std::vector<float> logits(static_cast<size_t>(3) * vocab);
  // Each row's logits after `prefix`, as a fresh single row computes them.
  const auto expect_row = [&](int row, const std::vector<int32_t>& prefix) {
    const std::vector<float> alone = test::teacher_forced_logits(model, encoded, 0, prefix);
    const float* want = alone.data() + (prefix.size() - 1) * vocab;
    for (int v = 0; v < vocab; ++v)
      REQUIRE(logits[static_cast<size_t>(row) * vocab + v] == Approx(want[v]).margin(1e-4));
  };
  state.start(1);
  state.step({start}, {0}, 0);
  state.select_rows({0, 0, 0});  // one hypothesis becomes three beams
  state.step({5, 6, 7}, {0, 0, 0}, 1);
  state.logits(0, 3, logits.data());
  expect_row(0, {start, 5});
  expect_row(1, {start, 6});
  expect_row(2, {start, 7});
  state.select_rows({2, 0});  // beam 1 dies, the others swap places
  state.step({8, 9}, {0, 0}, 2);
  state.logits(0, 2, logits.data());
  expect_row(0, {start, 7, 8});
  expect_row(1, {start, 5, 9});
}

TEST_CASE("Marian's model.yml: an SSRU decoder converts, other recurrences are refused by name", "[ssru]") {
  const auto parse = [](const std::string& extra) {
    return models::parse_model_yml(models::FlatYaml::parse(
        "type: transformer\ntransformer-decoder-autoreg: rnn\n" + extra, "model.yml"));
  };
  REQUIRE(parse("dec-cell: ssru\n").ssru);
  REQUIRE_THROWS_WITH(parse("dec-cell: gru\n"), Catch::Contains("dec-cell") && Catch::Contains("'gru'"));
  REQUIRE_THROWS_WITH(parse("dec-cell: ssru\nlayer-normalization: true\n"),
                      Catch::Contains("layer-normalization"));
  REQUIRE_THROWS_WITH(
      models::parse_model_yml(models::FlatYaml::parse(
          "type: transformer\ntransformer-decoder-autoreg: average-attention\n", "model.yml")),
      Catch::Contains("transformer-decoder-autoreg") && Catch::Contains("average-attention"));
}

TEST_CASE("an SSRU student's attention: cross-attention recorded, no decoder self-attention layers",
          "[ssru][attention]") {
  test::TempDir tmp;
  const std::string fixture = test::fixtures_dir() + "/marian-ssru";
  models::MarianFiles files;
  files.npz = fixture + "/model.npz";
  files.source_vocab = files.target_vocab = fixture + "/vocab.ende.spm";
  models::ConvertOptions options;
  options.output_dir = tmp.file("model");
  models::convert_marian_npz(fixture, files, options);
  const pipeline::Translator translator(tmp.file("model"));
  pipeline::TranslateOptions o = translator.defaults();
  o.beam_size = 1;
  models::AttentionRequest request;
  request.cross = request.encoder = request.decoder = true;
  const pipeline::AttentionTranslation t =
      pipeline::translate_with_attention(translator, "A man is riding a bike.", o, request);
  CHECK(t.attention.decoder.empty());  // no layers rather than empty ones, which JSON readers would index
  REQUIRE(t.attention.cross.size() == 2);
  CHECK(t.attention.cross[1].size() ==
        static_cast<size_t>(t.attention.n_heads) * t.attention.target_len * t.attention.source_len);
}

TEST_CASE("an SSRU cell update rounds as Marian's CPU build does, on every kernel level",
          "[ssru][ssru_arithmetic]") {
  // Expected bits from tools/marian_rounding.py, an exact transcription of marian-decoder's compiled code
  // (Cephes' exp with fused multiply-adds, sigmoid e / (1 + e), c = fma(1 - f, x, f c_prev)); each group
  // after the first five rounds differently with one of those steps done another way. ctest also runs this
  // with NMT_CPU=avx2 and portable.
  struct Case {
    float gate, candidate, c_prev;
    uint32_t c_bits;
  };
  const Case cases[] = {
      {-100.0f, 0.5f, 0.3f, 0x3f000000u},
      {0.0f, -0.7f, 2.4f, 0x3f59999au},
      {30.0f, 1.1f, 0.2f, 0x3e4ccccdu},
      {85.0f, 6.5f, -0.8f, 0xbf4ccccdu},  // past Marian's NaN: f = 1
      {-87.9f, 0.9f, 0.15f, 0x3f666666u},
      {-0.550f, 0.047f, 0.524f, 0x3e62d571u},  // libm's exp rounds these differently
      {-0.098f, -1.108f, 2.035f, 0x3ec5eaeeu},
      {-3.693f, -0.161f, -2.238f, 0xbe5887bbu},
      {-5.045f, 0.071f, 0.779f, 0x3d9ab031u},  // so does f c_prev + (1 - f) x unfused
      {-6.606f, -1.004f, 2.784f, 0xbf7fb6e7u},
      {-4.629f, -0.634f, 2.126f, 0xbf1b78b4u},
      {2.463f, 0.693f, -2.055f, 0xbfeb6e38u},  // and 1 / (1 + exp(-x)), Marian's scalar form
      {0.306f, 0.842f, -0.001f, 0x3eb68859u},
      {7.329f, 2.084f, -2.997f, 0xc03f9842u},
  };
  const int n = static_cast<int>(std::size(cases));
  std::vector<float> gate, candidate, c, out(n);
  for (const Case& k : cases) {
    gate.push_back(k.gate);
    candidate.push_back(k.candidate);
    c.push_back(k.c_prev);
  }
  models::ssru_update_row(gate.data(), candidate.data(), c.data(), out.data(), n);
  for (int i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &c[i], sizeof bits);
    INFO("case " << i << ": gate " << cases[i].gate);
    CHECK(bits == cases[i].c_bits);
    CHECK(out[i] == std::max(c[i], 0.0f));
  }
}
