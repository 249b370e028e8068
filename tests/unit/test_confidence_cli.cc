// End-to-end on the bundled model: JSON lines' confidence and flags, --min-confidence,
// --on-low-confidence and --flag-warnings.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace {

std::string translate() {
  return "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
         "/multi30k-en-de' --threads 1 -b 2";
}

const std::string kInput = "A dog runs on the grass.\n";

}  // namespace

TEST_CASE("JSON lines carry a confidence in 0..1", "[cli][confidence]") {
  const auto r = test::run(translate() + " --output-format jsonl", kInput + "\n");
  REQUIRE(r.exit_code == 0);
  const std::string first = r.out.substr(0, r.out.find('\n'));
  const auto j = nlohmann::json::parse(first);
  CHECK(j.at("confidence").get<double>() > 0.3);
  CHECK(j.at("confidence").get<double>() <= 1.0);
  CHECK(j.at("flags").empty());
  const auto blank = nlohmann::json::parse(r.out.substr(first.size() + 1));
  CHECK(blank.at("confidence") == 1.0);  // nothing to doubt
}

TEST_CASE("a minimum confidence flags and --on-low-confidence replaces", "[cli][confidence]") {
  const auto plain = test::run(translate(), kInput);
  REQUIRE(plain.exit_code == 0);
  const auto flagged = test::run(translate() + " --min-confidence 1 --output-format jsonl", kInput);
  REQUIRE(flagged.exit_code == 0);
  const auto j = nlohmann::json::parse(flagged.out);
  CHECK(j.at("flags") == nlohmann::json::array({"low-confidence"}));
  CHECK(j.at("text").get<std::string>() + "\n" == plain.out);  // keep, the default
  CHECK(test::run(translate() + " --min-confidence 1 --on-low-confidence source", kInput).out == kInput);
  CHECK(test::run(translate() + " --min-confidence 1 --on-low-confidence empty", kInput).out == "\n");
  CHECK(test::run(translate() + " --min-confidence 1 --on-low-confidence mark", kInput).out ==
        "[low confidence] " + plain.out);
  CHECK(test::run(translate() + " --min-confidence 0.01 --on-low-confidence empty", kInput).out == plain.out);

  const auto bad = test::run(translate() + " --on-low-confidence drop", kInput);
  CHECK(bad.exit_code == 64);
  CHECK_THAT(bad.err, Catch::Contains("--on-low-confidence") && Catch::Contains("keep|source|empty|mark"));
  CHECK(test::run(translate() + " --min-confidence 1.5", kInput).exit_code == 64);
}

TEST_CASE("flag warnings name FILE:LINE and the flags of each flagged line", "[cli][confidence]") {
  test::TempDir dir;
  const std::string path = dir.write("in.txt", kInput + "The invoice 4711 is due.\n");
  const auto r = test::run(translate() + " --min-confidence 0.99 --flag-warnings -i '" + path + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("in.txt:1: flagged low-confidence (confidence 0."));
  CHECK_THAT(r.err, Catch::Contains("in.txt:2: flagged "));
  const auto quiet = test::run(translate() + " --min-confidence 0.99 -i '" + path + "'");
  CHECK(quiet.err.find("flagged") == std::string::npos);  // off unless asked
}

TEST_CASE("low confidence: a document's markup stays on the text written", "[cli][confidence]") {
  const std::string page = "<p>A dog runs on the <b>grass</b>.</p>\n";
  const std::string low = " --format html --min-confidence 1 --on-low-confidence ";
  CHECK(test::run(translate() + low + "source", page).out == page);
  CHECK(test::run(translate() + low + "empty", page).out == "<p><b></b></p>\n");
  const auto marked = test::run(translate() + low + "mark", page).out;
  CHECK(marked.rfind("<p>[low confidence] ", 0) == 0);
  CHECK(marked.find("<b>") != std::string::npos);
  CHECK(marked.find("</b>") > marked.find("<b>") + 3);  // the bold word is still inside
}
