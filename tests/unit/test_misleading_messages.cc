// Issue 31's "messages that mislead", one row each: what the command exits with and how its message
// starts; and the commands that print without a model (info, --help, --version) fail on a full stdout.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string fixture_model() { return test::fixtures_dir() + "/opus/model"; }

// A copy of the fixture model with one model.json field replaced.
std::string model_with(const test::TempDir& dir, const std::string& section, const std::string& key,
                       const nlohmann::json& value) {
  const std::string m = dir.file(section + "-" + key);
  fs::copy(fixture_model(), m);
  nlohmann::json j = nlohmann::json::parse(test::read_file(m + "/model.json"));
  j[section][key] = value;
  test::write_file(m + "/model.json", j.dump(2));
  return m;
}

struct Row {
  std::string args;     // after `nmt`
  int exit_code;        // expected
  std::string message;  // stderr contains it
  std::string absent;   // and not this ("" for nothing)
};

}  // namespace

TEST_CASE("messages say what is wrong, not something else", "[cli][messages]") {
  test::TempDir dir;
  const std::string translate = "translate -q --threads 1 -m '" + fixture_model() + "'";
  const std::string huge_a = model_with(dir, "decoding", "max_length_a", 1e300);
  const std::string zero_eps = model_with(dir, "config", "layer_norm_eps", 0.0);
  const std::string wide_beam = model_with(dir, "decoding", "beam_size", 200);
  const std::string one_token = model_with(dir, "decoding", "max_length", 1);
  const std::vector<Row> rows = {
      // The last of a repeated option wins; neither is "missing a value".
      {translate + " -b 1 -b 2", 0, "", "needs a value"},
      {translate + " --length-penalty 1e39", 64, "--length-penalty: must be a number in -10..10, got '1e39'",
       "finite"},
      // Help and error give the same range.
      {translate + " --max-sentence-tokens 4", 64, "must be a whole number in 8..1048576, got '4'", "1024"},
      {translate + " --input-dir '' --output-dir x", 64, "--input-dir: must not be empty", "go together"},
      {"translate -m '" + huge_a + "'", 2, "decoding.max_length_a: 1e+300 out of range [0, 100]", "00000000"},
      {"translate -m '" + zero_eps + "'", 2, "config.layer_norm_eps: 0 out of range [1e-12, 1]", "0.000000"},
      // A model.json value out of the options table's range is refused at load naming the field; the same
      // value as a flag is refused naming the flag.
      {"translate -m '" + wide_beam + "'", 2, "decoding.beam_size: 200 out of range [1, 128]", "--beam"},
      {"info -m '" + one_token + "'", 2, "decoding.max_length: 1 out of range [2, 1048576]", "--max-length"},
      {translate + " -b 200", 64, "--beam-size: must be a whole number in 1..128, got '200'", "decoding."},
      {translate + " --max-length 1", 64, "--max-length: must be a whole number in 2..1048576, got '1'", ""},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    const test::RunResult r = test::run("timeout 60 " + nmt() + " " + row.args, "A dog.\n");
    CAPTURE(r.err);
    CHECK(r.exit_code == row.exit_code);
    if (!row.message.empty()) CHECK_THAT(r.err, Contains(row.message));
    if (!row.absent.empty()) CHECK_THAT(r.err, !Contains(row.absent));
  }
}

TEST_CASE("info, --help and --version fail with a message when stdout is full", "[cli][messages]") {
  if (::geteuid() != 0) NMT_SKIP_TEST("needs root to mknod a private full device");
  test::TempDir dir;
  const std::string full = dir.file("full");  // /dev/full's numbers, a private node
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  for (const std::string& args :
       {"info -m '" + fixture_model() + "'", std::string("--help"), std::string("--version"),
        std::string("translate --help"), std::string("info --version"), std::string("help translate")}) {
    CAPTURE(args);
    const test::RunResult r = test::run("timeout 60 " + nmt() + " " + args + " > '" + full + "'");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Contains("nmt: error: <stdout>") && Contains("No space left on device"));
  }
}
