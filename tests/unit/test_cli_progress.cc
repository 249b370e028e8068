// End-to-end: progress as the nmt binary writes it into a file (plain lines) and next to typed input.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string q(const std::string& text) { return "'" + text + "'"; }
std::string translate() {
  return q(test::nmt_binary()) + " translate -m " + q(test::fixtures_dir() + "/opus/model") + " --threads 1";
}

std::string lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "the man walks " + std::to_string(i) + "\n";
  return text;
}

size_t count(const std::string& s, char c) { return static_cast<size_t>(std::count(s.begin(), s.end(), c)); }

}  // namespace

TEST_CASE("progress into a file: plain lines, no carriage returns or escapes", "[cli][progress]") {
  test::TempDir dir;
  test::write_file(dir.file("in.txt"), lines(300));
  const auto r = test::run(translate() + " --progress -i " + q(dir.file("in.txt")) + " -o " +
                           q(dir.file("out.txt")) + " 2> " + q(dir.file("err.txt")));
  REQUIRE(r.exit_code == 0);
  const std::string err = test::read_file(dir.file("err.txt"));
  CHECK(err.find('\r') == std::string::npos);
  CHECK(err.find('\x1b') == std::string::npos);
  CHECK_THAT(err, Contains("nmt: 5.3/5.3 kB (100%)  300 lines  "));
  CHECK(err.back() == '\n');
  CHECK(count(err, '\n') <= 12);  // 10% steps at most, and the final line

  fs::create_directories(dir.file("src/sub"));
  test::write_file(dir.file("src/a.txt"), lines(20));
  test::write_file(dir.file("src/sub/b.txt"), lines(5));
  const auto tree = test::run(translate() + " --progress --input-dir " + q(dir.file("src")) +
                              " --output-dir " + q(dir.file("dst")) + " 2> " + q(dir.file("tree.txt")));
  const std::string tree_err = test::read_file(dir.file("tree.txt"));
  CHECK(tree_err.find('\r') == std::string::npos);
  CHECK(tree_err.find('\x1b') == std::string::npos);
  CHECK_THAT(tree_err, Contains("nmt: [2 files] ") && Contains("(100%)  25 lines"));
}

TEST_CASE("progress stays off while the user types the input on the terminal", "[cli][progress]") {
  test::TempDir dir;
  // `script` runs nmt on a terminal: stdin, stdout and stderr; the input is typed there (the pipe into
  // script stands for the keyboard), the translations go to a file.
  const auto typed = test::run("printf 'A dog runs.\\n\\004' | script -qfec " +
                               q(translate() + " -o " + q(dir.file("out.txt"))) + " /dev/null");
  CHECK(typed.exit_code == 0);
  CHECK(test::without_length_limit_warnings(typed.out).find("sentence") == std::string::npos);
  CHECK(test::read_file(dir.file("out.txt")).size() > 0);
  // The same with --progress: the user asked for it.
  const auto forced = test::run("printf 'A dog runs.\\n\\004' | script -qfec " +
                                q(translate() + " --progress -o " + q(dir.file("out.txt"))) + " /dev/null");
  CHECK(forced.exit_code == 0);
  CHECK_THAT(forced.out, Contains("1 sentence"));
}
