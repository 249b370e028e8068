// End-to-end on the bundled en->de model: wrong-language with the detected language, ALL-CAPS input
// recased, and --report's counts against the JSON lines' flags (stream and directory mode).
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "pipeline/recasing.h"
#include "test_support.h"

namespace {

std::string translate() {
  return "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
         "/multi30k-en-de' --threads 1 -b 2";
}

std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

const std::string kGerman = "Ein Mann mit einem orangefarbenen Hut starrt auf etwas in der Stadt.";
const std::string kEnglish = "A man in an orange hat is staring at something in the city.";
// Lines of every kind: English, German, ALL CAPS, a number to keep, a blank line.
const std::string kMixed = kEnglish + "\n" + kGerman + "\nTWO YOUNG MEN ARE PLAYING FOOTBALL IN A PARK.\n" +
                           "The invoice 4711 is due on 12.05.2024.\n\n" + kGerman + "\n";

}  // namespace

TEST_CASE("German into the en->de model is flagged wrong-language with its language", "[cli][quality]") {
  const auto r = test::run(translate() + " --output-format jsonl --flag-warnings", kGerman + "\n" + kEnglish);
  REQUIRE(r.exit_code == 0);
  const auto rows = json_lines(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("detected_language") == "de");
  CHECK_THAT(rows[0].at("flags").dump(), Catch::Contains("\"wrong-language\""));
  CHECK(rows[1].at("detected_language") == "en");
  CHECK(rows[1].at("output_language") == "de");
  CHECK_THAT(rows[1].value("flags", nlohmann::json::array()).dump(), !Catch::Contains("wrong-language"));
  CHECK_THAT(r.err, Catch::Contains("stdin:1: flagged ") && Catch::Contains("wrong-language (input de"));
  CHECK_THAT(r.err, !Catch::Contains("stdin:2:"));
}

TEST_CASE("a short line is not judged by its language", "[cli][quality]") {
  const auto r = test::run(translate() + " --output-format jsonl", "Hand in Hand\n12 + 7\n");
  REQUIRE(r.exit_code == 0);
  for (const auto& row : json_lines(r.out)) {
    CHECK(row.at("detected_language").is_null());
    CHECK_THAT(row.value("flags", nlohmann::json::array()).dump(), !Catch::Contains("wrong-language"));
  }
}

TEST_CASE("an ALL-CAPS line translates as its sentence-case form, in capitals", "[cli][quality]") {
  const std::string plain = "Two young men are playing football in a park.";
  const auto lower = test::run(translate(), plain + "\n");
  const auto caps =
      test::run(translate() + " --output-format jsonl", pipeline::upper_case(plain, "en") + "\n");
  REQUIRE(lower.exit_code == 0);
  REQUIRE(caps.exit_code == 0);
  const auto row = nlohmann::json::parse(caps.out);
  CHECK(row.at("text").get<std::string>() + "\n" == pipeline::upper_case(lower.out, "de"));
  CHECK_THAT(row.at("flags").dump(), Catch::Contains("\"recased\""));
}

TEST_CASE("the --report counts are the JSON lines' flags", "[cli][quality]") {
  test::TempDir dir;
  const std::string input = dir.write("src/in.txt", kMixed);
  const auto jsonl = test::run(translate() + " --output-format jsonl -i '" + input + "'");
  REQUIRE(jsonl.exit_code == 0);
  std::map<std::string, int> expected;
  int flagged = 0;
  for (const auto& row : json_lines(jsonl.out)) {
    for (const auto& flag : row.value("flags", nlohmann::json::array())) ++expected[flag.get<std::string>()];
    flagged += row.at("flags").empty() ? 0 : 1;
  }
  REQUIRE(expected["wrong-language"] == 2);
  REQUIRE(expected["recased"] == 1);

  const auto check_report = [&](const std::string& path) {
    const std::string text = test::read_file(path);
    CHECK_THAT(text, Catch::StartsWith("{\n  \"lines\": 6,\n") && Catch::EndsWith("}\n"));  // for people too
    const auto report = nlohmann::json::parse(text);
    CHECK(report.at("lines") == 6);
    CHECK(report.at("flagged_lines") == flagged);
    std::map<std::string, int> counted;
    for (const auto& [flag, count] : report.at("flags").items()) counted[flag] = count.get<int>();
    CHECK(counted == expected);
    REQUIRE(!report.at("worst").empty());
    CHECK_THAT(report.at("worst")[0].at("line").get<std::string>(), Catch::Contains("in.txt:"));
  };
  const auto stream =
      test::run(translate() + " -i '" + input + "' --report '" + dir.file("stream.json") + "'");
  REQUIRE(stream.exit_code == 0);
  check_report(dir.file("stream.json"));
  CHECK_THAT(stream.err, Catch::Contains("nmt: 6 line(s), " + std::to_string(flagged) + " flagged: "));
  CHECK_THAT(stream.err, Catch::Contains("  worst: ") && Catch::Contains("in.txt:2 (confidence "));

  const auto tree = test::run(translate() + " --input-dir '" + dir.file("src") + "' --output-dir '" +
                              dir.file("dst") + "' --report '" + dir.file("tree.json") + "'");
  REQUIRE(tree.exit_code == 0);
  check_report(dir.file("tree.json"));
  CHECK_THAT(tree.err, Catch::Contains("nmt: 6 line(s), " + std::to_string(flagged) + " flagged: "));

  // Each shard reports its own lines; together they are the whole tree's.
  int shard_lines = 0;
  for (const std::string shard : {"0/2", "1/2"}) {
    const std::string report = dir.file("shard" + shard.substr(0, 1) + ".json");
    const auto r = test::run(translate() + " --input-dir '" + dir.file("src") + "' --output-dir '" +
                             dir.file("sharded") + "' --shard " + shard + " --report '" + report + "'");
    REQUIRE(r.exit_code == 0);
    shard_lines += nlohmann::json::parse(test::read_file(report)).at("lines").get<int>();
  }
  CHECK(shard_lines == 6);
}

TEST_CASE("a --report that cannot be written fails before any translation", "[cli][quality]") {
  test::TempDir dir;
  const auto r = test::run(translate() + " --report '" + dir.file("missing/r.json") + "'", kEnglish + "\n");
  CHECK(r.exit_code != 0);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("missing/r.json"));
}
