// Hostile input end to end: broken text, huge lines, binaries, bad outputs, bad models, kills mid-run.
// Every case: a clear message, the right exit code, and N lines in -> N lines out.
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate(const std::string& m = model()) {
  return nmt() + " translate -m '" + m + "' --threads 1";
}

size_t count_lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A copy of the fixture model that a test may break.
std::string copy_model(const test::TempDir& dir) {
  const std::string dst = dir.file("model");
  fs::copy(model(), dst);
  return dst;
}

}  // namespace

TEST_CASE("invalid UTF-8, NUL bytes and control characters never lose a line", "[hostile]") {
  const std::string input =
      std::string("ok line\n\xff\xfe\xc0\xaf broken\nnul ") + '\0' + " inside\n\x01\x02\x7f\n\n";
  const auto r = test::run(translate(), input);
  REQUIRE(r.exit_code == 0);
  REQUIRE(count_lines(r.out) == 5);
}

TEST_CASE("a sentence over the token limit is cut, translated whole, with a warning", "[hostile]") {
  std::string line;  // one "sentence" of 12,000 words: clauses, no sentence end
  for (int i = 0; i < 12000; ++i) line += i % 7 == 6 ? "house, " : "the man ";
  std::string input;  // the long line is line 1501, far past the first read window (64 lines at batch 2)
  for (int i = 0; i < 1500; ++i) input += "short\n";
  const auto r = test::run(translate() + " -b 1 --batch-size 2 --max-length-a 1.0 --max-length-b 3",
                           input + line + "\nend\n");
  REQUIRE(r.exit_code == 0);
  REQUIRE(count_lines(r.out) == 1502);
  REQUIRE_THAT(r.err, Contains("nmt: warning: stdin:1501: 1 sentence over the limit of 200 tokens"));
  // Not truncated: enough segments to hold every word (200 tokens per segment at most).
  const size_t has = r.err.find("the line has ");
  REQUIRE(has != std::string::npos);
  REQUIRE(std::stol(r.err.substr(has + 13)) >= 12000 / 200);
  // From a file, the file's name; --quiet drops the warning, not the translation.
  test::TempDir dir;
  test::write_file(dir.file("long.txt"), "short\n" + line + "\nend\n");
  const std::string flags = " -b 1 --max-length-a 1.0 --max-length-b 3";
  const auto named = test::run(translate() + flags + " -i " + dir.file("long.txt"));
  REQUIRE_THAT(named.err,
               Contains("nmt: warning: " + dir.file("long.txt") + ":2: 1 sentence over the limit"));
  const auto quiet = test::run(translate() + flags + " -q", "short\n" + line + "\n");
  REQUIRE(quiet.exit_code == 0);
  REQUIRE(quiet.err.empty());
  REQUIRE(count_lines(quiet.out) == 2);
}

TEST_CASE("stdout on a full disk reports the problem and fails", "[hostile]") {
  if (::geteuid() != 0) return test::skip("needs root to mknod a private full device");
  test::TempDir dir;
  const std::string full = dir.file("full");  // a private node with /dev/full's numbers, never /dev/full
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  const auto r = test::run(translate() + " > '" + full + "'", "one\ntwo\n");
  REQUIRE(r.exit_code == 1);
  REQUIRE_THAT(r.err, Contains("No space left on device"));
}

TEST_CASE("an unwritable output file names the path and errno text, leaves nothing behind", "[hostile]") {
  const auto r = test::run(translate() + " -o /proc/nmt-cannot-write/out.txt", "one\n");
  REQUIRE(r.exit_code == 1);
  REQUIRE_THAT(r.err, Contains("/proc/nmt-cannot-write/out.txt"));
  test::TempDir dir;
  const auto missing = test::run(translate() + " -o '" + dir.file("no/such/dir/out.txt") + "'", "one\n");
  REQUIRE(missing.exit_code == 1);
  REQUIRE_THAT(missing.err, Contains("no/such/dir"));
}

TEST_CASE("directory mode skips binaries, survives symlink loops, refuses input inside output", "[hostile]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("src/out");
  fs::create_directories(src + "/sub");
  test::write_file(src + "/text.txt", "a sentence\n");
  test::write_file(src + "/image.png",
                   std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + std::string(100, '\0'));
  fs::create_directory_symlink("..", src + "/sub/loop");
  auto r = test::run(translate() + " --input-dir '" + src + "' --output-dir '" + dst + "'");
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.err, Contains("image.png"));
  REQUIRE(fs::exists(dst + "/text.txt"));
  REQUIRE(!fs::exists(dst + "/image.png"));
  // Output inside input (dst above) is fine; input inside output is refused.
  r = test::run(translate() + " --input-dir '" + src + "/sub' --output-dir '" + src + "'");
  REQUIRE(r.exit_code == 64);
  REQUIRE_THAT(r.err, Contains("inside --output-dir"));
}

TEST_CASE("directory mode killed with SIGKILL and rerun finishes every file completely", "[hostile]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst"), ref = dir.file("ref");
  fs::create_directories(src);
  std::string text;
  for (int i = 0; i < 60; ++i) text += "the man number " + std::to_string(i) + " walks\n";
  for (int f = 0; f < 12; ++f) test::write_file(src + "/f" + std::to_string(f) + ".txt", text);
  const std::string args = " -b 2 --batch-size 4 --input-dir '" + src + "' --output-dir ";
  REQUIRE(test::run(translate() + args + "'" + ref + "'").exit_code == 0);

  const pid_t child = fork();
  if (child == 0) {
    const std::string cmd = translate() + args + "'" + dst + "' 2>/dev/null";
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it once it has finished a few files but not all.
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (fs::exists(dst) && std::distance(fs::directory_iterator(dst), fs::directory_iterator()) >= 2) break;
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  for (const auto& e : fs::directory_iterator(dst)) {  // whatever is there under a final name is complete
    if (e.path().filename().string()[0] != '.') {
      REQUIRE(test::read_file(e.path()) == test::read_file(ref + "/" + e.path().filename().string()));
    }
  }
  const auto r = test::run(translate() + args + "'" + dst + "'");
  REQUIRE(r.exit_code == 0);
  for (int f = 0; f < 12; ++f) {
    const std::string name = "/f" + std::to_string(f) + ".txt";
    REQUIRE(test::read_file(dst + name) == test::read_file(ref + name));
  }
}

TEST_CASE("model problems are one-line errors naming the file, exit code 2", "[hostile]") {
  struct Case {
    const char* what;
    std::function<void(const std::string&)> damage;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"truncated blob", [](const std::string& m) { fs::resize_file(m + "/weights.bin", 1000); },
       "truncated"},
      {"missing spm", [](const std::string& m) { fs::remove(m + "/source.spm"); }, "source.spm"},
      {"json not an object", [](const std::string& m) { test::write_file(m + "/model.json", "[1,2]"); },
       "expected a JSON object"},
      {"vocabulary larger than the embeddings",
       [](const std::string& m) {
         auto j = nlohmann::json::parse(test::read_file(m + "/vocab.json"));
         for (int i = 0; i < 400; ++i) j["extra" + std::to_string(i)] = 400 + i;
         test::write_file(m + "/vocab.json", j.dump());
       },
       "exceed the embeddings"},
      {"garbage spm", [](const std::string& m) { test::write_file(m + "/target.spm", "not a model"); },
       "target.spm"},
  };
  for (const auto& c : cases) {
    test::TempDir dir;
    const std::string m = copy_model(dir);
    c.damage(m);
    const auto r = test::run(translate(m), "hello\n");
    INFO(c.what << ": " << r.err);
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.err, Contains(c.expected));
    REQUIRE_THAT(r.err, Contains(m));
    REQUIRE(count_lines(r.err) == 1);
    REQUIRE(r.out.empty());
  }
}

TEST_CASE("CR, LF, CRLF and mixed line endings: N lines in, N lines out, each ending kept",
          "[hostile][e2e]") {
  const std::string lf = test::run(translate(), "A dog.\nTwo men.\n\nA girl.\n").out;
  REQUIRE(count_lines(lf) == 4);
  std::vector<std::string> outs;
  size_t start = 0;
  for (size_t nl; (nl = lf.find('\n', start)) != std::string::npos; start = nl + 1) {
    outs.push_back(lf.substr(start, nl - start));
  }
  const auto cr = test::run(translate(), "A dog.\rTwo men.\r\rA girl.\r");
  REQUIRE(cr.exit_code == 0);
  CHECK(cr.out == outs[0] + "\r" + outs[1] + "\r" + outs[2] + "\r" + outs[3] + "\r");
  const auto crlf = test::run(translate(), "A dog.\r\nTwo men.\r\n\r\nA girl.\r\n");
  CHECK(crlf.out == outs[0] + "\r\n" + outs[1] + "\r\n" + outs[2] + "\r\n" + outs[3] + "\r\n");
  const auto mixed = test::run(translate(), "A dog.\rTwo men.\r\n\nA girl.");
  CHECK(mixed.out == outs[0] + "\r" + outs[1] + "\r\n" + outs[2] + "\n" + outs[3]);
}
