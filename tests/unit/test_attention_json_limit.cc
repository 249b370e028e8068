// `nmt attention --format json` refuses, before writing anything, more weights than kMaxJsonWeights.
#include <catch2/catch.hpp>
#include <filesystem>

#include "cli/io/attention_json.h"
#include "core/error.h"
#include "test_support.h"

namespace {

// Three layers of 4 heads, sources and targets of `len` pieces; the matrices stay empty: only their
// shapes are counted, and nothing is written above the limit.
pipeline::AttentionTranslation shaped(int len) {
  pipeline::AttentionTranslation t;
  t.attention.n_heads = 4;
  t.attention.source_len = t.attention.target_len = len;
  t.attention.cross.resize(3);
  t.attention.encoder.resize(3);
  t.attention.decoder.resize(3);
  return t;
}

}  // namespace

TEST_CASE("attention JSON weight count follows --layer and --head", "[cli][attention]") {
  const pipeline::AttentionTranslation t = shaped(1000);
  CHECK(cli::json_weight_count(t.attention, {}) == 3ull * 4 * 3 * 1000 * 1000);
  CHECK(cli::json_weight_count(t.attention, {1, -1}) == 4ull * 3 * 1000 * 1000);
  CHECK(cli::json_weight_count(t.attention, {1, 2}) == 3ull * 1000 * 1000);
}

TEST_CASE("attention JSON above the limit is refused and writes nothing", "[cli][attention]") {
  test::TempDir dir;
  const std::string path = dir.file("attn.json");
  cli::OutputTarget out = cli::OutputTarget::open(path);
  REQUIRE_THROWS_WITH(cli::write_attention_json(shaped(1000), {}, out),
                      Catch::Matchers::Contains("36000000 weights, more than the 16777216") &&
                          Catch::Matchers::Contains("--layer, --head"));
  CHECK_FALSE(std::filesystem::exists(path));
}
