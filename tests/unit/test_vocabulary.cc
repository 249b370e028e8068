// The piece <-> id table of a JSON vocabulary: lookups both ways and the files it refuses.
#include <catch2/catch.hpp>
#include <random>

#include "core/error.h"
#include "test_support.h"
#include "tokenizer/vocabulary.h"

namespace {

tokenizer::Vocabulary load(const test::TempDir& dir, const std::string& json) {
  const std::string path = dir.path() + "/vocab.json";
  test::write_file(path, json);
  return tokenizer::Vocabulary::load_json(path);
}

std::string load_error(const std::string& json) {
  test::TempDir dir;
  try {
    load(dir, json);
  } catch (const core::Error& e) {
    const std::string message = e.what();
    REQUIRE(message.rfind(dir.path() + "/vocab.json: ", 0) == 0);  // the file comes first
    return message.substr(dir.path().size() + 13);
  }
  FAIL("no error for " << json);
  return "";
}

}  // namespace

TEST_CASE("a vocabulary maps pieces to ids and back", "[vocabulary]") {
  test::TempDir dir;
  const tokenizer::Vocabulary v =
      load(dir, R"({"</s>": 0, "<unk>": 1, "\u2581Ein": 5, "Hund": 3, "": 7, "a\"b": 2})");
  REQUIRE(v.size() == 8);
  REQUIRE(v.id("</s>", -1) == 0);
  REQUIRE(v.id("\xe2\x96\x81"
               "Ein",
               -1) == 5);
  REQUIRE(v.id("Hund", -1) == 3);
  REQUIRE(v.id("a\"b", -1) == 2);
  REQUIRE(v.id("", -1) == 7);
  REQUIRE(v.id("Hun", -1) == -1);
  REQUIRE(v.id("Hundx", 1) == 1);
  REQUIRE(v.piece(5) ==
          "\xe2\x96\x81"
          "Ein");
  REQUIRE(v.piece(3) == "Hund");
  REQUIRE(v.piece(4).empty());  // an id without a piece
  REQUIRE(v.piece(8).empty());
  REQUIRE(v.piece(-1).empty());
}

TEST_CASE("every piece of a large vocabulary is found under its own id", "[vocabulary]") {
  // Many pieces sharing prefixes and lengths: collisions in the index must not mix them up.
  std::mt19937 rng(7);
  std::vector<int32_t> ids(60000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::string json = "{";
  for (size_t i = 0; i < ids.size(); ++i)
    json += (i ? ",\"p" : "\"p") + std::to_string(i) + "\":" + std::to_string(ids[i]);
  json += "}";
  test::TempDir dir;
  const tokenizer::Vocabulary v = load(dir, json);
  REQUIRE(v.size() == 60000);
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string piece = "p" + std::to_string(i);
    REQUIRE(v.id(piece, -1) == ids[i]);
    REQUIRE(v.piece(ids[i]) == piece);
  }
  REQUIRE(v.id("p60000", -1) == -1);
}

TEST_CASE("an empty vocabulary has no pieces", "[vocabulary]") {
  test::TempDir dir;
  const tokenizer::Vocabulary v = load(dir, "{}");
  REQUIRE(v.size() == 0);
  REQUIRE(v.id("a", -3) == -3);
}

TEST_CASE("a malformed vocabulary is refused with the file and the problem", "[vocabulary]") {
  using Catch::Matchers::StartsWith;
  REQUIRE_THAT(load_error("{\"a\": 1,"), StartsWith("vocabulary is not valid JSON"));
  REQUIRE_THAT(load_error(""), StartsWith("vocabulary is not valid JSON"));
  REQUIRE_THAT(load_error("{\"a\": 1} x"), StartsWith("vocabulary is not valid JSON"));
  const std::string not_object = "vocabulary must be a JSON object {\"piece\": id}";
  REQUIRE(load_error("[1, 2]") == not_object);
  REQUIRE(load_error("5") == not_object);
  REQUIRE(load_error("\"a\"") == not_object);
  const std::string bad_b = "piece 'b': id must be an integer in [0, 2^24)";
  REQUIRE(load_error(R"({"a": 0, "b": -1})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": 1.0})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": 16777216})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": "1"})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": null})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": true})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": [1]})") == bad_b);
  REQUIRE(load_error(R"({"a": 0, "b": {"c": 1}})") == bad_b);
  REQUIRE(load_error(R"({"a": 3, "b": 3})") == "id 3 used twice");
  REQUIRE(load_error(R"({"a": 3, "a": 4})") == "piece 'a' appears twice");
}
