// What a newcomer types first: text as arguments, a flag given twice, help about help, and messages that
// name the flag and the range help shows, refusing values that cannot translate anything.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "cli/commands/help_format.h"
#include "test_support.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate() { return nmt() + " translate -m '" + model() + "' --threads 1"; }

}  // namespace

TEST_CASE("text arguments are input lines, one per argument", "[cli][options]") {
  const auto piped = test::run(translate(), "the man walks\na small dog\n");
  REQUIRE(piped.exit_code == 0);
  const auto args = test::run(translate() + " 'the man walks' 'a small dog'");
  CHECK(args.exit_code == 0);
  CHECK(args.out == piped.out);
  const auto both = test::run(translate() + " -i - 'the man walks'");
  CHECK(both.exit_code == 64);
  CHECK(both.err == "nmt: -i and text arguments are two inputs: give one; see `nmt translate --help`\n");
}

TEST_CASE("an option given twice takes its last value", "[cli][options]") {
  const auto last = test::run(translate() + " -b 5 -b 1 --scores", "the man walks\n");
  CHECK(last.exit_code == 0);
  CHECK(last.out == test::run(translate() + " -b 1 --scores", "the man walks\n").out);
  const auto twice = test::run(translate() + " -o - -o - --max-length 9 --max-length 30", "a dog\n");
  CHECK(twice.exit_code == 0);
  CHECK(test::without_length_limit_warnings(twice.err).empty());
}

TEST_CASE("help about help, and no suggestion that keeps nothing of what was typed", "[cli][options]") {
  const auto help = test::run(nmt() + " help help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, StartsWith("nmt: neural machine translation"));
  const auto x = test::run(translate() + " -x", "a\n");
  CHECK(x.exit_code == 64);
  CHECK(x.err == "nmt: unknown option '-x' for `nmt translate`; see `nmt translate --help`\n");
}

TEST_CASE("help fits 80 columns and names the environment variables", "[cli][options]") {
  for (const std::string command : {"", " translate", " attention", " info", " convert"}) {
    CAPTURE(command);
    const auto r = test::run(nmt() + command + " --help");
    CHECK(r.exit_code == 0);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      CAPTURE(line);
      size_t columns = 0;
      for (const char c : line) columns += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
      CHECK(columns <= 80);
    }
    if (command != " convert") CHECK_THAT(r.out, Contains("NMT_CPU") && Contains("NMT_MODEL"));
  }
  const auto cpu = test::run("NMT_CPU=foo " + translate(), "a\n");
  CHECK(cpu.exit_code == 64);
  CHECK_THAT(cpu.err, Contains("NMT_CPU=foo") && Contains("nmt translate --help"));
}

TEST_CASE("range errors say the range help shows", "[cli][options]") {
  const auto help = test::run(nmt() + " translate --help").out;
  CHECK_THAT(help, Contains("(8..1048576)") && Contains("(-10..10)") && Contains("(0..2^63-1)"));
  auto r = test::run(translate() + " --max-sentence-tokens 4", "a\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --max-sentence-tokens: must be a whole number in 8..1048576, got '4'"));
  r = test::run(translate() + " --length-penalty 1e39", "a\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --length-penalty: must be a number in -10..10, got '1e39'"));
  r = test::run(translate() + " --sampling-topp 0", "a\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --sampling-topp: must be a number above 0 up to 1, got '0'"));
  r = test::run(translate() + " --input-dir '' --output-dir x");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --input-dir: must not be empty"));
}

TEST_CASE("length limits that cannot produce a word are refused", "[cli][options]") {
  auto r = test::run(translate() + " --max-length-a 0 --max-length-b 0", "a dog\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --max-length-b leaves no room for a word with --max-length-a 0"));
  CHECK(r.out.empty());
  r = test::run(translate() + " --max-length 1", "a dog\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, StartsWith("nmt: --max-length: must be a whole number in 2..1048576, got '1'"));
  CHECK(test::run(translate() + " --max-length-a 0 --max-length-b 2", "a dog\n").exit_code == 0);
}

TEST_CASE("a source language without an abbreviation list is named in a warning", "[cli][options]") {
  auto r = test::run(translate() + " --source-lang xx", "a dog\n");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("warning: --source-lang xx: no abbreviation list"));
  r = test::run(translate() + " --source-lang xx -q", "a dog\n");
  CHECK(r.err.empty());
  r = test::run(translate() + " --source-lang de-AT", "a dog\n");
  CHECK(test::without_length_limit_warnings(r.err).empty());
}

TEST_CASE("wrap_text breaks at spaces under the text it continues", "[cli][options]") {
  CHECK(cli::wrap_text("one two three four", 9) == "one two\nthree\nfour");
  CHECK(cli::wrap_text("  NAME  the text goes on", 16) == "  NAME  the text\n        goes on");
  CHECK(cli::wrap_text("short\n  kept  as is", 80) == "short\n  kept  as is");
  CHECK(cli::wrap_text("a unbreakablewordhere", 8) == "a\nunbreakablewordhere");
}

TEST_CASE("nmt attention takes the options it shares with translate from the same table", "[cli][options]") {
  const std::string attention = nmt() + " attention -m '" + model() + "' 'a dog' ";
  CHECK(test::run(attention + "-b 3 -b 1 --format json").exit_code == 0);
  for (const std::string args : {"--max-length 1", "--length-penalty 1e39"}) {
    CAPTURE(args);
    const auto a = test::run(attention + args);
    const auto t = test::run(translate() + " " + args, "a dog\n");
    CHECK(a.exit_code == 64);
    CHECK(a.err.substr(0, a.err.find(';')) == t.err.substr(0, t.err.find(';')));
  }
}
