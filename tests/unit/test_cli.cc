// End-to-end: the nmt binary as a user runs it, on a tiny checked-in fixture model.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "test_support.h"

namespace {

using Catch::Matchers::Contains;

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate() { return nmt() + " translate -m '" + model() + "' --threads 1"; }

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("stdin to stdout: one line out per line in, blank lines stay blank", "[cli]") {
  // -q: the fixture's random model never ends a sentence, and its length-limit warnings are not the point.
  const auto r = test::run(translate() + " -q", "a small dog\n\nthe man is walking\n   \nlast\n");
  REQUIRE(r.exit_code == 0);
  REQUIRE(count(r.out, "\n") == 5);
  const auto lines = r.out;
  REQUIRE(lines.find("\n\n") != std::string::npos);  // line 2 blank
  REQUIRE(r.err.empty());
}

TEST_CASE("empty input gives empty output", "[cli]") {
  const auto r = test::run(translate(), "");
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.empty());
}

TEST_CASE("CRLF endings and a final line without newline are reproduced", "[cli]") {
  const auto r = test::run(translate(), "one\r\ntwo\r\nthree");
  REQUIRE(r.exit_code == 0);
  REQUIRE(count(r.out, "\r\n") == 2);
  REQUIRE(r.out.back() != '\n');
}

TEST_CASE("same translation for a line alone and inside a larger input", "[cli]") {
  const auto alone = test::run(translate() + " -b 2", "the man is walking\n");
  const auto many =
      test::run(translate() + " -b 2 --batch-size 3",
                "a\nthe dog\nthe man is walking\nsomething much longer than the others here\nb\n");
  REQUIRE(alone.exit_code == 0);
  REQUIRE(many.exit_code == 0);
  const std::string third = many.out.substr(0, many.out.size());
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t p; (p = third.find('\n', start)) != std::string::npos; start = p + 1)
    lines.push_back(third.substr(start, p - start));
  REQUIRE(lines.size() == 5);
  REQUIRE(lines[2] + "\n" == alone.out);
}

TEST_CASE("threads split a short input between them, output and order as with one thread", "[cli]") {
  // Fewer lines than a batch: with 3 threads they run as 3 batches (one per thread) instead of one.
  const std::string input =
      "a\nthe dog\nthe man is walking\n\nsomething much longer than the others here\nb\n";
  const auto one = test::run(translate() + " -b 2", input);
  const auto three = test::run(nmt() + " translate -m '" + model() + "' --threads 3 -b 2", input);
  REQUIRE(one.exit_code == 0);
  REQUIRE(three.exit_code == 0);
  REQUIRE(count(one.out, "\n") == 6);
  REQUIRE(three.out == one.out);
}

TEST_CASE("files: -i and -o, output written whole", "[cli]") {
  test::TempDir dir;
  test::write_file(dir.file("in.txt"), "hello there\nsecond line\n");
  const auto r = test::run(translate() + " -i '" + dir.file("in.txt") + "' -o '" + dir.file("out.txt") + "'");
  REQUIRE(r.exit_code == 0);
  REQUIRE(count(test::read_file(dir.file("out.txt")), "\n") == 2);
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) entries += e.is_regular_file();
  REQUIRE(entries == 2);  // no temp file left behind
}

TEST_CASE("n-best and scores output formats", "[cli]") {
  const auto r = test::run(translate() + " -b 3 --n-best 3", "a small dog\nthe man\n");
  REQUIRE(r.exit_code == 0);
  REQUIRE(count(r.out, "\n") == 6);
  REQUIRE(r.out.rfind("0 ||| ", 0) == 0);
  REQUIRE(r.out.find("\n1 ||| ") != std::string::npos);
  const auto s = test::run(translate() + " --scores", "a small dog\n");
  REQUIRE(s.exit_code == 0);
  REQUIRE(s.out.find('\t') != std::string::npos);
  REQUIRE(s.out[0] == '-');  // a log-probability
}

TEST_CASE("bad flags are usage errors (exit 64)", "[cli]") {
  for (const std::string flags :
       {"-b 0", "--max-length -3", "--threads 10000", "-b 2 --n-best 3", "--batch-size 0", "--no-such-flag",
        "--shard 3/2 --input-dir a --output-dir b"}) {
    const auto r = test::run(translate() + " " + flags, "x\n");
    INFO(flags << ": " << r.err);
    REQUIRE(r.exit_code == 64);
    REQUIRE(!r.err.empty());
    REQUIRE(r.out.empty());
  }
}

TEST_CASE("a missing input file or model is a one-line error", "[cli]") {
  const auto r = test::run(translate() + " -i /no/such/file.txt");
  REQUIRE(r.exit_code == 1);
  REQUIRE_THAT(r.err, Contains("/no/such/file.txt"));
  const auto m = test::run(nmt() + " translate -m /no/such/model", "x\n");
  REQUIRE(m.exit_code == 2);
  REQUIRE_THAT(m.err, Contains("/no/such/model"));
  REQUIRE(count(m.err, "\n") == 1);
}

TEST_CASE("info describes the model", "[cli]") {
  const auto r = test::run(nmt() + " info '" + model() + "'");
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.out, Contains("parameters:"));
  REQUIRE_THAT(r.out, Contains("  d_model: "));
}

TEST_CASE("NMT_MODEL is the default model, -m and info's argument come first", "[cli]") {
  const std::string env = "NMT_MODEL='" + model() + "' ";
  const auto t = test::run(env + nmt() + " translate --threads 1", "a small dog\n");
  CHECK(t.exit_code == 0);
  CHECK(t.out == test::run(translate(), "a small dog\n").out);
  const auto i = test::run(env + nmt() + " info");
  CHECK(i.exit_code == 0);
  CHECK_THAT(i.out, Contains(model()));
  const auto missing = test::run("NMT_MODEL=/no/such/model " + nmt() + " translate", "x\n");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Contains("/no/such/model"));
  CHECK(test::run("NMT_MODEL=/no/such/model " + translate(), "x\n").exit_code == 0);
  CHECK(test::run("NMT_MODEL=/no/such/model " + nmt() + " info '" + model() + "'").exit_code == 0);
  const auto empty = test::run("NMT_MODEL= " + nmt() + " info");  // empty: the bundled model
  CHECK(empty.exit_code == 0);
  CHECK_THAT(empty.out, Contains("general-en-de"));
}

TEST_CASE("help explains the flags with their defaults", "[cli]") {
  const auto r = test::run(nmt() + " translate --help");
  REQUIRE(r.exit_code == 0);
  for (const char* flag :
       {"--beam-size", "--beam", "--length-penalty", "--max-length", "--batch-size", "--threads", "--n-best",
        "--scores", "--input-dir", "--output-dir", "--glob", "--shard", "--overwrite", "--model"}) {
    REQUIRE_THAT(r.out, Contains(flag));
  }
}

TEST_CASE("directory mode: nested folders, glob, resume, overwrite", "[cli]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  std::filesystem::create_directories(src + "/a/b");
  test::write_file(src + "/top.txt", "one\ntwo\n");
  test::write_file(src + "/a/mid.txt", "three\n");
  test::write_file(src + "/a/b/deep.txt", "four\n\nsix\n");
  test::write_file(src + "/a/b/skip.md", "not this\n");
  const std::string cmd =
      translate() + " --input-dir '" + src + "' --output-dir '" + dst + "' --glob '*.txt'";
  auto r = test::run(cmd);
  REQUIRE(r.exit_code == 0);
  REQUIRE(count(test::read_file(dst + "/top.txt"), "\n") == 2);
  REQUIRE(count(test::read_file(dst + "/a/b/deep.txt"), "\n") == 3);
  REQUIRE(!exists(dst + "/a/b/skip.md"));
  REQUIRE_THAT(r.err, Contains("3 file(s) translated"));
  // Resume: finished files are skipped; a deleted output is redone.
  std::filesystem::remove(dst + "/a/mid.txt");
  r = test::run(cmd);
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.err, Contains("1 file(s) translated, 2 already done"));
  REQUIRE(exists(dst + "/a/mid.txt"));
  r = test::run(cmd + " --overwrite");
  REQUIRE_THAT(r.err, Contains("3 file(s) translated"));
}

TEST_CASE("directory mode: shards cover every file exactly once", "[cli]") {
  test::TempDir dir;
  const std::string src = dir.file("src");
  std::filesystem::create_directories(src + "/x");
  for (int i = 0; i < 7; ++i) test::write_file(src + "/x/f" + std::to_string(i) + ".txt", "line\n");
  std::multiset<std::string> seen;
  for (int s = 0; s < 3; ++s) {
    const std::string dst = dir.file("out" + std::to_string(s));
    const auto r = test::run(translate() + " --input-dir '" + src + "' --output-dir '" + dst + "' --shard " +
                             std::to_string(s) + "/3");
    REQUIRE(r.exit_code == 0);
    if (!exists(dst + "/x")) continue;
    for (const auto& e : std::filesystem::directory_iterator(dst + "/x"))
      seen.insert(e.path().filename().string());
  }
  REQUIRE(seen.size() == 7);
  REQUIRE(std::set<std::string>(seen.begin(), seen.end()).size() == 7);
}

TEST_CASE("a failing file does not stop directory mode, and the exit code says so", "[cli]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  std::filesystem::create_directories(src);
  std::filesystem::create_directories(dst);
  test::write_file(src + "/good.txt", "fine\n");
  test::write_file(src + "/bad.txt", "fine\n");
  std::filesystem::create_directories(dst + "/bad.txt");  // a directory where the output should go
  const auto r = test::run(translate() + " --input-dir '" + src + "' --output-dir '" + dst + "'");
  REQUIRE(r.exit_code == 1);
  REQUIRE(exists(dst + "/good.txt"));
  REQUIRE_THAT(r.err, Contains("1 failed"));
  REQUIRE_THAT(r.err, Contains("bad.txt"));
}

TEST_CASE("a closed output pipe ends the run quietly, exit 141 like any tool killed by SIGPIPE", "[cli]") {
  test::TempDir dir;
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "the man walks\n";
  // -q: no length-limit warnings from the fixture's random model (errors still show).
  const auto r = test::run("(" + translate() + " -q -b 1 --batch-size 8; echo $? > '" + dir.file("status") +
                               "') | head -c 1 > /dev/null",
                           big);
  REQUIRE(r.err.empty());
  REQUIRE(test::read_file(dir.file("status")) == "141\n");
}

TEST_CASE("plain-text-only flags on a document exit 64 instead of being ignored", "[cli]") {
  for (const std::string flag : {"--scores", "--n-best 2", "--alignment", "--word-scores"}) {
    const auto r = test::run(translate() + " --format html " + flag, "<p>a small dog</p>\n");
    CHECK(r.exit_code == 64);
    CHECK_THAT(r.err, Contains("need --format text"));
  }
}
