// int8 checkpoints: what the writer stores, what the loader refuses, how close int8 logits stay to f32,
// and `nmt convert --dtype int8` from every source.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "models/blob_crc32.h"
#include "models/model_error.h"
#include "models/transformer.h"
#include "teacher_forced.h"
#include "test_support.h"

using nlohmann::json;

namespace {

std::vector<int32_t> random_ids(std::mt19937& rng, int n, int vocab, int32_t eos) {
  std::uniform_int_distribution<int> id(4, vocab - 1);
  std::vector<int32_t> ids(n);
  for (int& x : ids) x = id(rng);
  ids.back() = eos;
  return ids;
}

// Applies `edit` to weights.bin's bytes and model.json, then fixes the blob's size and CRC.
template <class Edit>
void edit_model(const std::string& dir, const Edit& edit) {
  json meta = json::parse(test::read_file(dir + "/model.json"));
  std::string blob = test::read_file(dir + "/weights.bin");
  edit(meta, blob);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx",
                static_cast<unsigned long>(
                    models::blob_crc32(reinterpret_cast<const uint8_t*>(blob.data()), blob.size())));
  meta["weights"]["crc32"] = hex;
  meta["weights"]["size"] = blob.size();
  test::write_file(dir + "/weights.bin", blob);
  test::write_file(dir + "/model.json", meta.dump(1));
}

json* tensor(json& meta, const std::string& name) {
  for (json& t : meta["tensors"])
    if (t["name"] == name) return &t;
  return nullptr;
}

std::string load_error(const std::string& dir) {
  try {
    models::Transformer model(dir);
  } catch (const models::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an int8 checkpoint stores linear weights and embeddings as i8 with scales, the rest f32",
          "[int8][checkpoint]") {
  test::TempDir dir;
  auto d = test::small_description();
  d.config.shared_embeddings = false;
  d.config.tied_output = false;
  d.config.output_bias = true;
  test::write_random_model(dir.path(), d, 3, models::DType::kI8);
  const models::Checkpoint ckpt(dir.path());
  int i8 = 0;
  for (const auto& t : ckpt.tensors()) {
    CAPTURE(t.name);
    if (models::int8_quantizable(t.name)) {
      CHECK(t.dtype == models::DType::kI8);
      ++i8;
      REQUIRE(ckpt.has(t.name + ".scales"));
    } else {
      CHECK(t.dtype == models::DType::kF32);
    }
  }
  // 2 layers x (4 self-attention + 2 FFN) + 2 x (4 self + 4 cross + 2 FFN) + 3 embeddings/output
  CHECK(i8 == 2 * 6 + 2 * 10 + 3);
}

TEST_CASE("int8 logits stay within a stated tolerance of f32, and decode incrementally as they recompute",
          "[int8][transformer]") {
  auto base = test::small_description();
  auto untied = base;
  untied.config.shared_embeddings = false;
  untied.config.tied_output = false;
  untied.config.output_bias = true;
  untied.config.tgt_vocab_size = 37;
  auto odd = base;  // d_model not a multiple of the panel: q, k and v unstacked
  odd.config.d_model = 20;
  for (const auto& d : {base, untied, odd}) {
    test::TempDir f32_dir, i8_dir;
    test::write_random_model(f32_dir.path(), d, 21, models::DType::kF32);
    test::write_random_model(i8_dir.path(), d, 21, models::DType::kI8);
    models::Transformer f32(f32_dir.path()), i8(i8_dir.path());
    std::mt19937 rng(4);
    const std::vector<std::vector<int32_t>> sources = {
        random_ids(rng, 7, d.config.src_vocab_size, d.tokens.eos)};
    const auto enc32 = f32.encode(sources), enc8 = i8.encode(sources);
    std::vector<int32_t> prefix = {d.tokens.decoder_start, 5, 9, 7};
    const auto full32 = test::teacher_forced_logits(f32, enc32, 0, prefix),
               full8 = test::teacher_forced_logits(i8, enc8, 0, prefix);
    REQUIRE(full32.size() == full8.size());
    // Tolerance: 8% of the logits' spread (random weights in [-1, 1) through 2+2 layers).
    float lo = full32[0], hi = full32[0], worst = 0;
    for (size_t i = 0; i < full32.size(); ++i) {
      lo = std::min(lo, full32[i]);
      hi = std::max(hi, full32[i]);
      worst = std::max(worst, std::fabs(full32[i] - full8[i]));
    }
    CAPTURE(d.config.d_model, worst, hi - lo);
    CHECK(worst <= 0.08f * (hi - lo));
    CHECK(worst > 0.0f);  // the int8 path really ran
  }
}

TEST_CASE("the loader refuses bad int8 tensors, naming them", "[int8][checkpoint]") {
  const auto d = test::small_description();
  const std::string w = "encoder.layers.0.fc1.weight";
  auto fresh = [&](test::TempDir& dir) { test::write_random_model(dir.path(), d, 5, models::DType::kI8); };
  SECTION("missing scales") {
    test::TempDir dir;
    fresh(dir);
    edit_model(dir.path(), [&](json& meta, std::string&) {
      auto& t = meta["tensors"];
      for (size_t i = 0; i < t.size(); ++i)
        if (t[i]["name"] == w + ".scales") t.erase(i);
    });
    CHECK(load_error(dir.path()).find("missing tensor '" + w + ".scales'") != std::string::npos);
  }
  for (float bad : {0.0f, -1.0f, NAN, INFINITY}) {
    DYNAMIC_SECTION("scale " << bad) {
      test::TempDir dir;
      fresh(dir);
      edit_model(dir.path(), [&](json& meta, std::string& blob) {
        const uint64_t at = (*tensor(meta, w + ".scales"))["offset"].get<uint64_t>() + 3 * sizeof(float);
        std::memcpy(&blob[at], &bad, sizeof bad);
      });
      const std::string error = load_error(dir.path());
      // A NaN or infinite scale is caught by the loader's finite scan, a zero or negative one by the
      // scales check; both name the scales tensor.
      CHECK(error.find(w + ".scales'") != std::string::npos);
      if (std::isfinite(bad)) CHECK(error.find(w + ".scales': row 3") != std::string::npos);
    }
  }
  SECTION("-128") {
    test::TempDir dir;
    fresh(dir);
    edit_model(dir.path(), [&](json& meta, std::string& blob) {
      blob[(*tensor(meta, w))["offset"].get<uint64_t>() + 5] = static_cast<char>(-128);
    });
    CHECK(load_error(dir.path()).find("'" + w + "': holds -128") != std::string::npos);
  }
  SECTION("i8 where only f32 or f16 may be") {
    test::TempDir dir;
    fresh(dir);
    edit_model(dir.path(), [&](json& meta, std::string&) {
      json& norm = *tensor(meta, "encoder.layers.0.ffn_norm.weight");
      norm["dtype"] = "i8";
      norm["nbytes"] = norm["nbytes"].get<uint64_t>() / 4;
    });
    CHECK(load_error(dir.path()).find("'encoder.layers.0.ffn_norm.weight': dtype i8 is only for") !=
          std::string::npos);
  }
}

TEST_CASE("nmt convert --dtype int8 from every source, and back with --from nmt", "[int8][convert][cli]") {
  const std::string nmt = "'" + test::nmt_binary() + "'";
  const std::string fixtures = test::fixtures_dir() + "/opus";
  test::TempDir out;
  const std::string input = "a man\nthe dog runs\n";
  const auto f32 = test::run(nmt + " translate -m '" + fixtures + "/model' -b 1", input);
  REQUIRE(f32.exit_code == 0);
  struct Source {
    std::string from, dir;
  };
  for (const Source& s : {Source{"nmt", fixtures + "/model"}, Source{"hf-marian", fixtures + "/hf"},
                          Source{"marian-npz", fixtures + "/marian"}}) {
    CAPTURE(s.from);
    const std::string dir = out.file(s.from);
    const auto converted =
        test::run(nmt + " convert --from " + s.from + " '" + s.dir + "' -o '" + dir + "' --dtype int8");
    REQUIRE(converted.exit_code == 0);
    CHECK(converted.out.find("(i8)") != std::string::npos);
    const auto translated = test::run(nmt + " translate -m '" + dir + "' -b 1", input);
    REQUIRE(translated.exit_code == 0);
    CHECK(std::count(translated.out.begin(), translated.out.end(), '\n') == 2);
  }
  // Every int8 kernel gives the same translation (each row's arithmetic is the same on all of them).
  const auto own = test::run(nmt + " translate -m '" + out.file("nmt") + "' -b 2", input);
  REQUIRE(own.exit_code == 0);
  for (const char* level : {"avx2", "portable"}) {
    CAPTURE(level);
    const auto forced = test::run(
        std::string("NMT_CPU=") + level + " " + nmt + " translate -m '" + out.file("nmt") + "' -b 2", input);
    REQUIRE(forced.exit_code == 0);
    CHECK(forced.out == own.out);
  }
  // Back to f32 from int8: the values q x scale, which re-quantize to the same int8 model.
  const auto back = test::run(nmt + " convert --from nmt '" + out.file("nmt") + "' -o '" + out.file("back") +
                              "' --dtype f32");
  REQUIRE(back.exit_code == 0);
  const auto again = test::run(nmt + " convert --from nmt '" + out.file("back") + "' -o '" +
                               out.file("again") + "' --dtype int8");
  REQUIRE(again.exit_code == 0);
  CHECK(test::read_file(out.file("again") + "/weights.bin") ==
        test::read_file(out.file("nmt") + "/weights.bin"));
  const auto bad =
      test::run(nmt + " convert --from nmt '" + fixtures + "/model' -o '" + out.file("x") + "' --dtype int4");
  CHECK(bad.exit_code == 64);
}
