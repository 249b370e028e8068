// The command line explains itself: errors start with "nmt:" in our words, typos get suggestions,
// help is reachable every way a user tries, --version works on every command.
#include <catch2/catch.hpp>
#include <string>

#include "cli/commands/usage.h"
#include "test_support.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
}  // namespace

TEST_CASE("closest_match suggests likely typos only", "[cli][usage]") {
  const std::vector<std::string> commands = {"translate", "info", "convert", "help"};
  CHECK(cli::closest_match("transalte", commands) == "translate");
  CHECK(cli::closest_match("inf", commands) == "info");
  CHECK(cli::closest_match("conver", commands) == "convert");
  CHECK(cli::closest_match("banana", commands).empty());
  CHECK(cli::closest_match("--bem", {"--beam", "--batch-size", "-b"}) == "--beam");
}

TEST_CASE("an unknown command or flag suggests the closest one", "[cli][usage]") {
  auto r = test::run(nmt() + " transalte");
  CHECK(r.exit_code == 64);
  CHECK(r.err ==
        "nmt: unknown command 'transalte' (did you mean `translate`?); commands: translate, info, convert, "
        "attention, serve, shortlist, models, help\n");  // help's order

  r = test::run(nmt() + " translate --beamsize 3", "x\n");
  CHECK(r.exit_code == 64);
  CHECK_THAT(
      r.err,
      StartsWith("nmt: unknown option '--beamsize' for `nmt translate` (did you mean `--beam-size`?)"));
  r = test::run(nmt() + " info --modle x");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Contains("did you mean `--model`?"));
  r = test::run(nmt() + " --verison");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Contains("did you mean `--version`?"));
}

TEST_CASE("bare nmt, nmt help and nmt help COMMAND print help", "[cli][usage]") {
  // Without a command nothing was done: the usage goes to stderr and the exit says so, as git's does.
  const auto bare = test::run(nmt());
  CHECK(bare.exit_code == 64);
  CHECK(bare.out.empty());
  CHECK_THAT(bare.err, Contains("Usage: nmt") && Contains("translate") && Contains("convert"));
  for (const std::string args : {" help", " --help"}) {
    CAPTURE(args);
    const auto r = test::run(nmt() + args);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Contains("Usage: nmt") && Contains("translate") && Contains("convert"));
  }
  const auto t = test::run(nmt() + " help translate");
  CHECK(t.exit_code == 0);
  CHECK_THAT(t.out, Contains("--beam-size") && Contains("--input-dir"));
  const auto bad = test::run(nmt() + " help transalte");
  CHECK(bad.exit_code == 64);
  CHECK_THAT(bad.err, Contains("did you mean `translate`?"));
}

TEST_CASE("help shows plain types and ranges", "[cli][usage]") {
  const auto r = test::run(nmt() + " translate --help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("-b,--beam-size,--beam N") && Contains("(1..128)") && Contains("--shard I/N"));
  for (const char* raw : {"INT", "FLOAT", "TEXT", "[1 - 256]", "in ["}) {
    CAPTURE(raw);
    CHECK(r.out.find(raw) == std::string::npos);
  }
}

TEST_CASE("every command line error is one line starting with nmt: in our words", "[cli][usage]") {
  const std::string translate = nmt() + " translate -m '" + model() + "' ";
  for (const std::string args :
       {"-b abc", "-b 0", "-b 300", "--length-penalty x", "--max-length-a 200", "--threads -1", "-b",
        "--no-such-flag", "--shard 3/2 --input-dir a --output-dir b", "--input-dir a", "--glob '*.txt'",
        "--progress -q", "-b 2 --n-best 3", "-i - extra-argument"}) {
    CAPTURE(args);
    const auto r = test::run(translate + args, "x\n");
    CHECK(r.exit_code == 64);
    CHECK_THAT(r.err, StartsWith("nmt: "));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const char* raw :
         {"Value ", "not in range", "At Most", "Could not convert", "INT", "The following"}) {
      CAPTURE(raw);
      CHECK(r.err.find(raw) == std::string::npos);
    }
  }
  const auto r = test::run(translate + "-b abc", "x\n");
  CHECK(r.err ==
        "nmt: --beam-size: must be a whole number in 1..128, got 'abc'; see `nmt translate --help`\n");
}

TEST_CASE("a version flag on every command, with the git revision", "[cli][usage]") {
  for (const std::string command : {"", " translate", " info", " convert"}) {
    CAPTURE(command);
    const auto r = test::run(nmt() + command + " --version");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, StartsWith("nmt ") && Contains(" (git "));
  }
}

TEST_CASE("nmt info takes -m like translate", "[cli][usage]") {
  const auto r = test::run(nmt() + " info -m '" + model() + "'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("model: " + model()) && Contains("parameters:"));
}
