// Non-finite numbers from a model: the search still returns a hypothesis for every sentence, the
// loader refuses NaN/Inf weights, the converters refuse to write them.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/search.h"
#include "models/transformer.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
constexpr int kVocab = 6;  // 0 EOS, 1..4 words, 5 pad

// Sentence 0 gets `poison` as every logit; the others prefer word 1 and then EOS.
class PoisonedDecoder : public core::DecoderStep {
 public:
  explicit PoisonedDecoder(float poison) : poison_(poison) {}
  int vocab_size() const override { return kVocab; }
  void start(int) override {}
  void select_rows(const std::vector<int>&) override {}
  void step(const std::vector<int32_t>&, const std::vector<int>& sentence_of_row, int position) override {
    sentence_of_row_ = sentence_of_row;
    position_ = position;
  }
  void logits(int first_row, int n_rows, float* out) override {
    for (int r = 0; r < n_rows; ++r) {
      const int sentence = sentence_of_row_.at(first_row + r);
      float* row = out + static_cast<size_t>(r) * kVocab;
      for (int i = 0; i < kVocab; ++i) row[i] = sentence == 0 ? poison_ : -1.0f;
      if (sentence != 0) row[position_ == 0 ? 1 : 0] = 2.0f;
    }
  }

 private:
  float poison_;
  std::vector<int> sentence_of_row_;
  int position_ = 0;
};

}  // namespace

TEST_CASE("a model computing NaN or Inf still gets one hypothesis per sentence", "[search][hostile]") {
  for (const float poison : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()}) {
    for (const int beam : {1, 2, 4}) {
      CAPTURE(poison, beam);
      core::SearchOptions options;
      options.beam_size = beam;
      options.n_best = beam;
      options.eos_id = 0;
      options.start_id = 5;
      options.banned = {5};
      PoisonedDecoder decoder(poison);
      const auto results = core::search(decoder, {6, 6}, options);
      REQUIRE(results.size() == 2);
      REQUIRE(results[0].size() == 1);
      CHECK(results[0][0].tokens.empty());
      CHECK(results[0][0].score == -std::numeric_limits<float>::infinity());
      REQUIRE(!results[1].empty());
      CHECK(results[1][0].tokens == std::vector<int32_t>{1});
      CHECK(std::isfinite(results[1][0].score));
    }
  }
}

namespace {

// A random model whose tensor `name` has one stored number replaced by `bits` (f32 or f16 bits),
// with the checksum in model.json made to match: only the finiteness check can catch it.
void poison_tensor(const std::string& dir, const std::string& name, uint32_t bits) {
  const std::string json_path = dir + "/model.json";
  auto meta = nlohmann::json::parse(test::read_file(json_path));
  std::string blob = test::read_file(dir + "/weights.bin");
  for (const auto& t : meta["tensors"]) {
    if (t["name"] != name) continue;
    const size_t at = t["offset"].get<size_t>() + t["nbytes"].get<size_t>() / 2;  // mid-tensor
    const size_t size = t["dtype"] == "f32" ? 4 : 2;
    std::memcpy(&blob[at / size * size], &bits, size);
  }
  test::write_file(dir + "/weights.bin", blob);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx",
                crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(blob.data()), blob.size()));
  meta["weights"]["crc32"] = hex;
  test::write_file(json_path, meta.dump());
}

}  // namespace

TEST_CASE("the loader refuses NaN and infinite weights, naming the tensor", "[checkpoint][hostile]") {
  struct Case {
    models::DType dtype;
    uint32_t bits;
  };
  const std::vector<Case> cases = {{models::DType::kF32, 0x7fc00000u},  // NaN
                                   {models::DType::kF32, 0xff800000u},  // -Inf
                                   {models::DType::kF16, 0x7e00u},      // NaN
                                   {models::DType::kF16, 0x7c00u}};     // +Inf
  // A bias (copied by get()) and a weight matrix (packed, or used by BLAS, depending on the CPU).
  for (const char* name : {"decoder.layers.1.fc1.bias", "encoder.layers.0.fc2.weight"}) {
    for (const Case& c : cases) {
      CAPTURE(name, c.bits);
      test::TempDir dir;
      test::write_random_model(dir.path(), test::small_description(), 3, c.dtype);
      REQUIRE_NOTHROW(models::Transformer(dir.path()));
      poison_tensor(dir.path(), name, c.bits);
      REQUIRE_THROWS_WITH(
          models::Transformer(dir.path()),
          Contains("weights.bin: tensor '" + std::string(name) + "' holds NaN or infinite values"));
    }
  }
}

TEST_CASE("a line the model yields no finite score for: a warning naming FILE:LINE, an empty line",
          "[hostile][e2e]") {
  // Finite weights the loader accepts, large enough that the encoder's feed-forward overflows to
  // infinity and the layer norm after it to NaN: every logit is NaN.
  test::TempDir dir;
  const std::string m = dir.file("model");
  std::filesystem::copy(test::fixtures_dir() + "/opus/model", m);
  auto meta = nlohmann::json::parse(test::read_file(m + "/model.json"));
  std::string blob = test::read_file(m + "/weights.bin");
  for (const auto& t : meta["tensors"]) {
    if (t["name"] != "encoder.layers.0.fc2.weight") continue;
    REQUIRE(t["dtype"] == "f32");
    const float huge = 3e38f;
    for (size_t at = t["offset"].get<size_t>(); at < t["offset"].get<size_t>() + t["nbytes"].get<size_t>();
         at += 4) {
      std::memcpy(&blob[at], &huge, 4);
    }
  }
  test::write_file(m + "/weights.bin", blob);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx",
                crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(blob.data()), blob.size()));
  meta["weights"]["crc32"] = hex;
  test::write_file(m + "/model.json", meta.dump());

  test::write_file(dir.file("in.txt"), "A dog.\n\nTwo men. A girl.\n");
  const auto r = test::run("'" + test::nmt_binary() + "' translate -m '" + m + "' --threads 1 -i '" +
                           dir.file("in.txt") + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "\n\n\n");  // three lines in, three (empty) lines out; the blank one needs no model
  CHECK_THAT(r.err, Contains(dir.file("in.txt") + ":1: the model yields no finite score for this line"));
  CHECK_THAT(r.err, Contains(dir.file("in.txt") + ":3: the model yields no finite score"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);
  const auto scores =
      test::run("'" + test::nmt_binary() + "' translate --scores -m '" + m + "' --threads 1", "A dog.\n");
  CHECK(scores.out == "-inf\t\n");
  const auto aligned =
      test::run("'" + test::nmt_binary() + "' translate --alignment -m '" + m + "' --threads 1", "A dog.\n");
  CHECK(aligned.out == " ||| \n");  // no words, no pairs
}
