// The score of a line longer than the model's positions, translated in pieces: the mean of the pieces'
// best scores, with one hypothesis for the line whatever n_best asks.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/translator.h"
#include "test_support.h"

namespace {

// The bundled model with room for 16 positions only, so a line of two short sentences must be split.
std::string short_positions_model(const test::TempDir& dir) {
  const std::string src = std::string(NMT_TEST_DATA) + "/multi30k-en-de", dst = dir.file("model");
  std::filesystem::copy(src, dst);
  nlohmann::json meta = nlohmann::json::parse(test::read_file(dst + "/model.json"));
  meta["config"]["max_positions"] = 16;
  meta["decoding"]["max_length"] = 16;
  test::write_file(dst + "/model.json", meta.dump());
  return dst;
}

}  // namespace

TEST_CASE("a line split into pieces scores the mean of its pieces' best scores", "[translator]") {
  test::TempDir dir;
  const pipeline::Translator translator(short_positions_model(dir));
  pipeline::TranslateOptions o = translator.defaults();
  o.beam_size = 4;
  o.n_best = 3;
  // 13 + 1 and 9 + 1 tokens with EOS: each fits, together they do not.
  const std::string a = "A man in a blue shirt rides a bike down the street.",
                    b = "Two black dogs are playing in the snow.";
  const auto alone = translator.translate({a, b}, o);
  for (const auto& t : alone) REQUIRE(t.scores.size() == 3);  // each fits: its own n-best list

  const auto joined = translator.translate({a + " " + b}, o);
  REQUIRE(joined[0].scores.size() == 1);
  REQUIRE(joined[0].texts.size() == 1);
  CHECK(joined[0].texts[0] == alone[0].texts[0] + " " + alone[1].texts[0]);
  CHECK(joined[0].scores[0] == alone[0].scores[0] / 2.0f + alone[1].scores[0] / 2.0f);
}
