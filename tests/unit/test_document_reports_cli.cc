// End-to-end on the bundled model: --flag-warnings, --report and --progress for documents, in stream and
// directory mode, and the page's declared language set to the target's.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

using Catch::Matchers::Contains;

namespace {

std::string q(const std::string& text) { return "'" + text + "'"; }

std::string translate() {
  return q(test::nmt_binary()) + " translate -m " + q(std::string(NMT_TEST_DATA) + "/multi30k-en-de") +
         " --threads 1 -b 2";
}

const char kMarkdown[] = "# A dog\n\nA dog runs on the **grass**.\n";
const char kSubtitles[] = "1\n00:00:01,000 --> 00:00:02,000\nA man is walking.\n";

}  // namespace

TEST_CASE("a document's flagged segments: a warning each and the report counts them", "[cli][documents]") {
  test::TempDir dir;
  const std::string doc = dir.write("doc.md", kMarkdown);
  const auto r = test::run(translate() + " --min-confidence 0.99 --flag-warnings --report " +
                           q(dir.file("report.json")) + " -i " + q(doc) + " -o " + q(dir.file("out.md")));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("doc.md:1: flagged low-confidence (confidence 0."));
  CHECK_THAT(r.err, Contains("doc.md:3: flagged low-confidence (confidence 0."));
  CHECK_THAT(r.err, Contains("nmt: 2 line(s), 2 flagged: low-confidence 2"));
  const auto report = nlohmann::json::parse(test::read_file(dir.file("report.json")));
  CHECK(report.at("lines") == 2);
  CHECK(report.at("flagged_lines") == 2);
  CHECK(report.at("flags").at("low-confidence") == 2);
  CHECK_THAT(report.at("worst").at(0).at("line").get<std::string>(), Contains("doc.md:"));
  CHECK_THAT(test::read_file(dir.file("out.md")), Contains("**"));  // the markup is written as before

  const auto unflagged = test::run(translate() + " -i " + q(doc) + " -o " + q(dir.file("out2.md")));
  REQUIRE(unflagged.exit_code == 0);
  CHECK(unflagged.err.find("flagged") == std::string::npos);  // off unless asked
}

TEST_CASE("directory mode: documents' segments in the report, their flags warned", "[cli][documents]") {
  test::TempDir dir;
  std::filesystem::create_directories(dir.file("in"));
  test::write_file(dir.file("in/doc.md"), kMarkdown);
  test::write_file(dir.file("in/film.srt"), kSubtitles);
  const auto r = test::run(translate() + " --min-confidence 0.99 --flag-warnings --report " +
                           q(dir.file("report.json")) + " --input-dir " + q(dir.file("in")) +
                           " --output-dir " + q(dir.file("out")));
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("film.srt:3: flagged low-confidence"));
  CHECK_THAT(r.err, Contains("doc.md:3: flagged low-confidence"));
  const auto report = nlohmann::json::parse(test::read_file(dir.file("report.json")));
  CHECK(report.at("lines") == 3);
  CHECK(report.at("flags").at("low-confidence") == 3);
}

TEST_CASE("documents: --progress follows a document", "[cli][documents][progress]") {
  test::TempDir dir;
  std::string srt;
  for (int i = 1; i <= 40; ++i) {
    srt += std::to_string(i) + "\n00:00:" + (i < 10 ? "0" : "") + std::to_string(i) +
           ",000 --> 00:00:" + (i < 10 ? "0" : "") + std::to_string(i) + ",900\nA dog runs on the grass.\n\n";
  }
  const std::string path = dir.write("film.srt", srt);
  const auto r = test::run(translate() + " --progress -i " + q(path) + " -o " + q(dir.file("out.srt")));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find('\r') == std::string::npos);  // not a terminal: plain lines
  CHECK_THAT(r.err, Contains("(100%)") && Contains("40 sentences"));
}

TEST_CASE("a page's declared language becomes the target's", "[cli][documents]") {
  const auto r =
      test::run(translate() + " --format html",
                "<!DOCTYPE html>\n<html lang=\"en\"><body><p lang=\"fr\">A dog runs.</p></body></html>\n");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("<html lang=\"de\">"));
  CHECK_THAT(r.out, Contains("<p lang=\"fr\">"));  // a passage in a language of its own keeps it
}
