// The lexical shortlist: its file (round trip, corrupt and hostile files refused with the file's name),
// its builder, the restricted output layer against the full one, and translation over a shortlist that
// keeps every piece giving the full vocabulary's output.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/int8_gemm.h"
#include "core/packed_gemm.h"
#include "models/layers.h"
#include "models/model_error.h"
#include "models/shortlist.h"
#include "models/shortlist_builder.h"
#include "models/shortlist_step.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

models::Shortlist small_shortlist() { return models::Shortlist(3, 10, 2, {0, 7}, {{1, 4}, {}, {9}}); }

// `bytes` with the last four bytes replaced by the CRC of the rest: a hostile file that passes the check.
std::string with_crc(std::string bytes, uint32_t crc) {
  for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  return bytes;
}

std::string refusal(const std::string& path, int src, int tgt) {
  try {
    models::Shortlist::read(path, src, tgt);
  } catch (const models::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a shortlist file round-trips", "[shortlist]") {
  test::TempDir dir;
  const models::Shortlist written = small_shortlist();
  written.write(dir.file("shortlist.bin"));
  const models::Shortlist read = models::Shortlist::read(dir.file("shortlist.bin"), 3, 10);
  CHECK(read.k() == 2);
  CHECK(read.frequent() == std::vector<int32_t>{0, 7});
  for (int32_t s = 0; s < 3; ++s)
    CHECK(std::vector<int32_t>(read.begin(s), read.end(s)) ==
          std::vector<int32_t>(written.begin(s), written.end(s)));
  // Source 2 keeps 9, source 0 keeps 1 and 4; ids outside the source vocabulary add nothing.
  CHECK(read.vocabulary({{2, 0}, {55}}, {3}) == std::vector<int32_t>{0, 1, 3, 4, 7, 9});
}

TEST_CASE("a corrupt or hostile shortlist file is refused with a one-line error naming it", "[shortlist]") {
  test::TempDir dir;
  const std::string path = dir.file("shortlist.bin");
  small_shortlist().write(path);
  const std::string good = test::read_file(path);
  std::vector<std::string> bad = {"", "NMTSLST1", good.substr(0, good.size() - 5)};
  std::string flipped = good;
  flipped[20] ^= 1;
  bad.push_back(flipped);
  // Valid checksums over broken contents: a target id past the vocabulary, a list longer than k, a huge
  // header count.
  std::string hostile_id = good;
  hostile_id[hostile_id.size() - 8] = 10;  // the last target, 9 -> 10
  std::string long_list = good;
  long_list[8 + 4 * 2] = 1;  // k 2 -> 1, while source 0 keeps two
  std::string huge = good;
  huge[8 + 4 * 3 + 3] = 0x7f;  // n_frequent
  for (std::string* b : {&hostile_id, &long_list, &huge}) {
    const uint32_t crc = models::Shortlist::checksum(b->substr(0, b->size() - 4));
    bad.push_back(with_crc(*b, crc));
  }
  for (const std::string& bytes : bad) {
    CAPTURE(bytes.size());
    test::write_file(path, bytes);
    const std::string error = refusal(path, 3, 10);
    CHECK(error.find(path) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  }
  test::write_file(path, good);
  CHECK(refusal(path, 3, 10).empty());
  CHECK(refusal(path, 3, 11).find("vocabularies") != std::string::npos);
  CHECK(refusal(dir.file("missing.bin"), 3, 10).find("missing.bin") != std::string::npos);
}

TEST_CASE("the builder ranks target pieces by co-occurrence", "[shortlist]") {
  // Source 1 always comes with target 5; target 2 is everywhere.
  const std::vector<std::vector<int32_t>> src = {{1, 3}, {1}, {3}, {0}};
  const std::vector<std::vector<int32_t>> tgt = {{5, 2}, {5, 2, 6}, {2, 7}, {2}};
  models::ShortlistBuildOptions o;
  o.k = 1;
  o.n_frequent = 1;
  o.score = models::ShortlistScore::kConditional;
  const models::Shortlist conditional = models::build_shortlist(src, tgt, 4, 8, o);
  CHECK(conditional.frequent() == std::vector<int32_t>{2});
  CHECK(std::vector<int32_t>(conditional.begin(1), conditional.end(1)) ==
        std::vector<int32_t>{2});  // ties: lowest id
  CHECK(std::vector<int32_t>(conditional.begin(2), conditional.end(2)).empty());
  o.score = models::ShortlistScore::kDice;
  const models::Shortlist dice = models::build_shortlist(src, tgt, 4, 8, o);
  CHECK(std::vector<int32_t>(dice.begin(1), dice.end(1)) == std::vector<int32_t>{5});
  CHECK(std::vector<int32_t>(dice.begin(2), dice.end(2)).empty());
}

TEST_CASE("the restricted output layer gives the full layer's logits on the kept columns", "[shortlist]") {
  const int out = 70, in = 24, rows = 5;
  const std::vector<float> w = test::random_values(static_cast<size_t>(out) * in, 1);
  const std::vector<float> bias = test::random_values(out, 2);
  const std::vector<float> x = test::random_values(static_cast<size_t>(rows) * in, 3);
  const std::vector<int32_t> ids = {0, 3, 4, 17, 18, 19, 40, 63, 69};
  core::PackedMatrix packed(w.data(), out, in);
  core::Int8Matrix int8(out, in);
  int8.quantize_rows(0, out, w.data());
  models::Linear plain{w.data(), bias.data(), out, in, nullptr, nullptr};
  models::Linear packed_linear{nullptr, bias.data(), out, in, &packed, nullptr};
  models::Linear int8_linear{nullptr, bias.data(), out, in, nullptr, &int8};
  for (const models::Linear* full : {&plain, &packed_linear, &int8_linear}) {
    CAPTURE(full == &plain ? "plain" : full == &packed_linear ? "packed" : "int8");
    const models::ShortlistOutput restricted(*full, ids);
    std::vector<float> all(static_cast<size_t>(rows) * out), kept(static_cast<size_t>(rows) * ids.size());
    models::project(*full, x.data(), rows, all.data());
    models::project(restricted.linear(), x.data(), rows, kept.data());
    for (int r = 0; r < rows; ++r) {
      for (size_t i = 0; i < ids.size(); ++i)
        CHECK(std::abs(kept[r * ids.size() + i] - all[static_cast<size_t>(r) * out + ids[i]]) <= 1e-5f);
    }
    CHECK(restricted.index_of(17) == 3);
    CHECK(restricted.index_of(16) == -1);
  }
}

TEST_CASE("a shortlist keeping every piece translates as the full vocabulary", "[shortlist][translator]") {
  test::TempDir dir;
  const std::string model = dir.file("model");
  std::filesystem::copy(test::fixtures_dir() + "/opus/model", model);
  pipeline::Translator translator(model);
  const models::ModelConfig& c = translator.model().config();
  std::vector<int32_t> every(static_cast<size_t>(c.tgt_vocab_size));
  for (int32_t t = 0; t < c.tgt_vocab_size; ++t) every[t] = t;
  models::Shortlist(c.src_vocab_size, c.tgt_vocab_size, 0, every,
                    std::vector<std::vector<int32_t>>(static_cast<size_t>(c.src_vocab_size)))
      .write(model + "/shortlist.bin");
  const std::vector<std::string> lines = {"the man", "a dog runs in the park", "two", "the man number 7"};
  for (const int beam : {1, 3}) {
    CAPTURE(beam);
    pipeline::TranslateOptions o = translator.defaults();
    o.beam_size = beam;
    o.n_best = beam;
    o.shortlist = "off";
    const auto full = translator.translate(lines, o);
    o.shortlist = "on";
    const auto restricted = translator.translate(lines, o);
    REQUIRE(full.size() == restricted.size());
    for (size_t i = 0; i < full.size(); ++i) {
      CHECK(full[i].texts == restricted[i].texts);
      CHECK(full[i].scores == restricted[i].scores);
    }
  }
}
