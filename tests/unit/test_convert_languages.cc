// The languages of a converted model (tokenizer_config.json, a Marian release's README.md, or
// --source-lang/--target-lang), the warning when a model does not know its source language, and what
// `nmt info` prints (floats at their own precision, one field per line, the converter's parameter count).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string fixture(const std::string& name) { return test::fixtures_dir() + "/opus/" + name; }

test::RunResult convert(const std::string& args) { return test::run(nmt() + " convert " + args); }

std::string info(const std::string& dir) { return test::run(nmt() + " info '" + dir + "'").out; }

// A copy of the fixture model without languages in its model.json.
void model_without_languages(const std::string& dir) {
  fs::copy(fixture("model"), dir, fs::copy_options::recursive);
  std::string json = test::read_file(dir + "/model.json");
  json = std::regex_replace(json, std::regex("\\s*\"(source|target)_lang\": \"[a-z]+\","), "");
  test::write_file(dir + "/model.json", json);
}

uint64_t number_after(const std::string& text, const std::string& label) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex(label + "([0-9]+)")));
  return std::stoull(m[1]);
}

}  // namespace

TEST_CASE("convert --from hf-marian takes the languages from tokenizer_config.json", "[convert_languages]") {
  test::TempDir dir;
  const auto r = convert("--from hf-marian '" + fixture("hf") + "' -o '" + dir.file("out") + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("languages en -> de"));
  CHECK_THAT(info(dir.file("out")), Contains("languages: en -> de"));
  // The splitter knows English abbreviations: one sentence, as with --no-split.
  const std::string line = "Dr. Smith rides a bike with Mr. Jones.\n";
  const std::string translate = nmt() + " translate --threads 1 -m '" + dir.file("out") + "'";
  const auto split = test::run(translate, line);
  CHECK(split.err.empty());
  CHECK(split.out == test::run(translate + " --no-split", line).out);
}

TEST_CASE("convert --from marian-npz takes the languages from the release README", "[convert_languages]") {
  test::TempDir dir;
  const std::string release = dir.file("release");
  fs::copy(fixture("marian"), release, fs::copy_options::recursive);
  SECTION("the download link of an OPUS-MT release") {
    test::write_file(release + "/README.md",
                     "# opus-2020-02-26.zip\n\n* dataset: opus\n* model: transformer-align\n"
                     "* download: [opus-2020-02-26.zip](https://object.pouta.csc.fi/OPUS-MT-models/en-de/"
                     "opus-2020-02-26.zip)\n");
    REQUIRE(convert("--from marian-npz '" + release + "' -o '" + dir.file("out") + "'").exit_code == 0);
    CHECK_THAT(info(dir.file("out")), Contains("languages: en -> de"));
  }
  SECTION("the stated languages of a Tatoeba release") {
    test::write_file(
        release + "/README.md",
        "# opus-2021-02-22.zip\n\n* source language(s): fr\n* target language(s): en\n"
        "* download: [opus-2021-02-22.zip](https://object.pouta.csc.fi/Tatoeba-MT-models/fra-eng/"
        "opus-2021-02-22.zip)\n");
    REQUIRE(convert("--from marian-npz '" + release + "' -o '" + dir.file("out") + "'").exit_code == 0);
    CHECK_THAT(info(dir.file("out")), Contains("languages: fr -> en"));
  }
  SECTION("no README: unknown, with a warning naming --source-lang; the options fill them in") {
    const auto r = convert("--from marian-npz '" + release + "' -o '" + dir.file("out") + "'");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(info(dir.file("out")), Contains("languages: (unknown) -> (unknown)"));
    CHECK_THAT(r.err, Contains("--source-lang"));
    const auto given = convert("--from marian-npz '" + release + "' -o '" + dir.file("given") +
                               "' --source-lang en --target-lang de");
    REQUIRE(given.exit_code == 0);
    CHECK(given.err.empty());
    CHECK_THAT(info(dir.file("given")), Contains("languages: en -> de"));
  }
}

TEST_CASE("convert --from nmt --source-lang sets the languages, a bad tag is a usage error",
          "[convert_languages]") {
  test::TempDir dir;
  model_without_languages(dir.file("bare"));
  REQUIRE_THAT(info(dir.file("bare")), Contains("(unknown) -> (unknown)"));
  const auto r = convert("--from nmt '" + dir.file("bare") + "' -o '" + dir.file("out") +
                         "' --dtype int8 --source-lang en --target-lang de");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(info(dir.file("out")), Contains("languages: en -> de"));
  const auto kept = convert("--from nmt '" + dir.file("out") + "' -o '" + dir.file("kept") + "'");
  REQUIRE(kept.exit_code == 0);
  CHECK_THAT(info(dir.file("kept")), Contains("languages: en -> de"));
  const auto bad =
      convert("--from nmt '" + dir.file("bare") + "' -o '" + dir.file("bad") + "' --source-lang 'e n'");
  CHECK(bad.exit_code == 64);
  CHECK_THAT(bad.err, Contains("--source-lang 'e n' is not a language tag"));
}

TEST_CASE("translate warns once when the model does not state its source language", "[convert_languages]") {
  test::TempDir dir;
  model_without_languages(dir.file("bare"));
  const std::string translate = nmt() + " translate --threads 1 -m '" + dir.file("bare") + "'";
  auto r = test::run(translate, "a small dog. the man is walking.\nlast\n");
  r.err = test::without_length_limit_warnings(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("does not state its source language"));
  CHECK_THAT(r.err, Contains("--source-lang"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(test::without_length_limit_warnings(test::run(translate + " --source-lang en", "a small dog\n").err)
            .empty());
  CHECK(test::without_length_limit_warnings(test::run(translate + " --no-split", "a small dog\n").err)
            .empty());  // nothing is split
  CHECK(test::run(translate + " -q", "a small dog\n").err.empty());
}

TEST_CASE("nmt info prints floats at their own precision, a field per line", "[convert_languages]") {
  const std::string out = info(fixture("model"));
  CHECK_THAT(out, Contains("  layer_norm_eps: 1e-05\n"));
  CHECK_THAT(out, Contains("  d_model: 32\n"));
  CHECK_THAT(out, Contains("  length_penalty: 1.0\n"));
  CHECK_THAT(out, Contains("  source_spm: source.spm\n"));
  CHECK(out.find('{') == std::string::npos);
  CHECK(out.find("9.99999") == std::string::npos);
}

TEST_CASE("nmt info and nmt convert count an int8 model's parameters alike", "[convert_languages]") {
  test::TempDir dir;
  for (const char* dtype : {"int8", "f32"}) {
    const std::string out = dir.file(dtype);
    const auto r = convert("--from nmt '" + fixture("model") + "' -o '" + out + "' --dtype " + dtype);
    REQUIRE(r.exit_code == 0);
    const uint64_t converted = number_after(r.out, "tensors, ");
    CHECK(number_after(info(out), "parameters: ") == converted);
    CHECK(number_after(info(fixture("model")), "parameters: ") == converted);
  }
}
