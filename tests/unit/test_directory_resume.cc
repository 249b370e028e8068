// End-to-end: directory mode's resume cannot lie (killed runs, shards, runs at once), file names are
// bytes, our own records are never input, and unreadable files, full disks, "**" globs and symlinks
// in the output tree are handled as documented.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "cli/files/glob_match.h"
#include "core/unique_fd.h"
#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string translate() { return "'" + test::nmt_binary() + "' translate -m '" + model() + "' --threads 1"; }
std::string q(const std::string& path) { return "'" + path + "'"; }
std::string tree(const std::string& src, const std::string& dst) {
  return translate() + " --input-dir " + q(src) + " --output-dir " + q(dst);
}

// Every output below `dir` (our dot files left out), by relative path.
std::map<std::string, std::string> outputs(const std::string& dir) {
  std::map<std::string, std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.')
      found[fs::relative(e.path(), dir).string()] = test::read_file(e.path().string());
  }
  return found;
}

void write_tree(const std::string& src) {
  fs::create_directories(src + "/d");
  test::write_file(src + "/a.txt", "A man rides a bike.\n");
  test::write_file(src + "/b.txt", "A dog runs.\nA cat sleeps.\n");
  test::write_file(src + "/d/c.txt", "Two women talk.\n");
  test::write_file(src + "/d/e.txt", "A child plays.\n");
}

}  // namespace

TEST_CASE("directory mode: a file name that is not UTF-8 is translated and resumed", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  test::write_file(src + "/caf\xE9.txt", "A dog runs.\n");
  auto r = test::run(tree(src, dst));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("5 file(s) translated"));
  CHECK(test::read_file(dst + "/caf\xE9.txt") == test::run(translate(), "A dog runs.\n").out);
  CHECK_THAT(test::read_file(dst + "/.nmt-manifest.json"), Contains("\"file\":\"caf%E9.txt\""));
  r = test::run(tree(src, dst));
  CHECK_THAT(r.err, Contains("0 file(s) translated, 5 already done"));
  CHECK(r.exit_code == 0);
}

TEST_CASE("directory mode: an output replaced by a killed run with other options is redone",
          "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  REQUIRE(test::run(tree(src, dst)).exit_code == 0);
  const auto plain = outputs(dst);
  // A --scores run killed after replacing the outputs, before its record: the manifest still
  // describes the default run.
  const std::string record = test::read_file(dst + "/.nmt-manifest.json");
  REQUIRE(test::run(tree(src, dst) + " --scores").exit_code == 0);
  test::write_file(dst + "/.nmt-manifest.json", record);
  const auto r = test::run(tree(src, dst));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("0 already done, 4 retranslated (stale)"));
  CHECK(outputs(dst) == plain);
}

TEST_CASE("directory mode: shard records go stale when another run rewrites the outputs", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  for (const char* s : {"0/2", "1/2"}) REQUIRE(test::run(tree(src, dst) + " --shard " + s).exit_code == 0);
  const auto plain = outputs(dst);
  auto r = test::run(tree(src, dst) + " --scores");
  CHECK_THAT(r.err, Contains("4 retranslated (stale)"));
  for (const char* s : {"0/2", "1/2"}) {
    r = test::run(tree(src, dst) + " --shard " + s);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Contains("0 already done"));
  }
  CHECK(outputs(dst) == plain);
  r = test::run(tree(src, dst));  // the shards' records vouch for the unsharded run too
  CHECK_THAT(r.err, Contains("0 file(s) translated, 4 already done"));
}

TEST_CASE("directory mode: a second run on the same manifest at once is refused", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  fs::create_directories(dst);
  core::UniqueFd lock(::open((dst + "/.nmt-manifest.json.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  REQUIRE(::flock(lock.get(), LOCK_EX) == 0);  // as a running nmt holds it
  auto r = test::run(tree(src, dst));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains(dst + ": another nmt run is writing .nmt-manifest.json here"));
  CHECK(outputs(dst).empty());
  r = test::run(tree(src, dst) + " --shard 0/2");  // another shard's manifest: runs at once are fine
  CHECK(r.exit_code == 0);
  lock.reset();
  // Runs with different --globs, one after the other, keep each other's records.
  const std::string other = dir.file("other");
  REQUIRE(test::run(tree(src, other) + " --glob 'a.txt'").exit_code == 0);
  REQUIRE(test::run(tree(src, other) + " --glob 'b.txt'").exit_code == 0);
  r = test::run(tree(src, other));
  CHECK_THAT(r.err, Contains("2 file(s) translated, 2 already done"));
  // A finished run leaves no lock file in the user's tree.
  CHECK(!fs::exists(other + "/.nmt-manifest.json.lock"));
  CHECK(!fs::exists(dst + "/.nmt-manifest.0-of-2.json.lock"));
}

TEST_CASE("directory mode: our manifests in the input tree are not input", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), de = dir.file("de"), back = dir.file("back");
  write_tree(src);
  REQUIRE(test::run(tree(src, de) + " --shard 0/2").exit_code == 0);
  REQUIRE(test::run(tree(src, de)).exit_code == 0);
  const auto r = test::run(tree(de, back));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("4 file(s) translated"));
  CHECK(outputs(back).size() == 4);
}

TEST_CASE("directory mode: the output directory inside the input is skipped with a warning",
          "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src");
  write_tree(src);
  const auto r = test::run(tree(src, src + "/out"));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("nmt: warning: " + src + "/out: skipped: the output directory"));
  CHECK_THAT(r.err, Contains("4 file(s) translated"));
}

TEST_CASE("directory mode: unreadable files and directories are failures", "[cli][resume]") {
  if (::geteuid() != 0) NMT_SKIP_TEST("needs root to drop privileges with setpriv");
  if (test::run("command -v setpriv").exit_code != 0) NMT_SKIP_TEST("setpriv is not installed");
  test::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  fs::create_directories(dst);
  test::run("chmod -R a+rX " + q(src) + " && chown 65534 " + q(dst));
  ::chmod((src + "/b.txt").c_str(), 0);
  ::chmod((src + "/d").c_str(), 0);
  const auto r = test::run("setpriv --reuid=65534 --regid=65534 --clear-groups " + tree(src, dst));
  ::chmod((src + "/d").c_str(), 0755);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("1 file(s) translated") && Contains("2 failed"));
  CHECK_THAT(r.err, Contains("failed: " + src + "/b.txt: cannot open for reading: Permission denied"));
  CHECK_THAT(r.err, Contains("failed: " + src + "/d: cannot open directory: Permission denied"));
}

TEST_CASE("directory mode: a finished run resumes in an output directory it cannot write", "[cli][resume]") {
  if (::geteuid() != 0) NMT_SKIP_TEST("needs root to drop privileges with setpriv");
  if (test::run("command -v setpriv").exit_code != 0) NMT_SKIP_TEST("setpriv is not installed");
  test::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  REQUIRE(test::run(tree(src, dst)).exit_code == 0);
  test::run("chmod -R a+rX " + q(src) + " " + q(dst));
  const auto r = test::run("setpriv --reuid=65534 --regid=65534 --clear-groups " + tree(src, dst));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("0 file(s) translated, 4 already done"));
}

TEST_CASE("directory mode: a full device stops the run at once, and a rerun finishes it", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  fs::create_directories(src);
  for (int i = 0; i < 9; ++i) test::write_file(src + "/f" + std::to_string(i) + ".txt", "A dog runs.\n");
  fs::create_directories(dst);
  if (::mount("tmpfs", dst.c_str(), "tmpfs", 0, "size=64k") != 0)
    NMT_SKIP_TEST("cannot mount a tmpfs here: " + std::string(std::strerror(errno)));
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{dst};
  // Leave room for the manifest and about one output.
  test::run("dd if=/dev/zero of=" + q(dst + "/filler") + " bs=4096 count=14 2>/dev/null");
  auto r = test::run(tree(src, dst));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("is full: stopping"));
  CHECK_THAT(r.err, Contains("not attempted (device full)"));
  CHECK_THAT(r.err, !Contains("9 failed") && !Contains("10 failed") && !Contains("11 failed"));
  fs::remove(dst + "/filler");
  r = test::run(tree(src, dst));
  CHECK(r.exit_code == 0);
  CHECK(outputs(dst).size() == 9);
  CHECK_THAT(r.err, Contains(" 0 failed"));
  const std::string one = test::read_file(dst + "/f0.txt");
  for (const auto& [name, text] : outputs(dst)) CHECK(text == one);
}

TEST_CASE("directory mode: --glob '**' matches any depth, including none", "[cli][resume]") {
  CHECK(cli::glob_matches("**/*.txt", "a.txt"));
  CHECK(cli::glob_matches("**/*.txt", "d/e/f.txt"));
  CHECK_FALSE(cli::glob_matches("**/*.txt", "d/e/f.md"));
  CHECK(cli::glob_matches("d/**", "d/e/f.md"));
  CHECK(cli::glob_matches("d/**/f.md", "d/f.md"));
  CHECK_FALSE(cli::glob_matches("d/*.md", "d/e/f.md"));
  CHECK(cli::glob_matches("*.md", "d/e/f.md"));
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  write_tree(src);
  fs::create_directories(src + "/d/x");
  test::write_file(src + "/d/x/deep.txt", "A dog runs.\n");
  const auto r = test::run(tree(src, dst) + " --glob '**/*.txt'");
  CHECK_THAT(r.err, Contains("5 file(s) translated"));
}

TEST_CASE("directory mode: a symlink in the output tree is not followed", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst"), outside = dir.file("outside");
  write_tree(src);
  fs::create_directories(dst);
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, dst + "/d");
  const auto r = test::run(tree(src, dst));
  CHECK(r.exit_code == 1);
  CHECK(fs::is_empty(outside));
  CHECK_THAT(r.err, Contains(dst + "/d: is a symlink in the output directory; not followed"));
  CHECK_THAT(r.err, Contains("2 file(s) translated") && Contains("2 failed"));
}

TEST_CASE("directory mode: after any sequence of runs, a final run equals a fresh one", "[cli][resume]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), fresh = dir.file("fresh");
  write_tree(src);
  REQUIRE(test::run(tree(src, fresh)).exit_code == 0);
  const auto expected = outputs(fresh);
  const char* options[] = {"", " --scores", " -b 2", " --n-best 2"};
  const char* scopes[] = {"", " --shard 0/2", " --shard 1/2", " --glob 'd/*'", " --glob '**/a.txt'"};
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const std::string dst = dir.file("dst" + std::to_string(seed));
    std::mt19937 rng(seed);
    auto any_run = [&] { return tree(src, dst) + options[rng() % 4] + scopes[rng() % 5]; };
    for (int step = 0; step < 8; ++step) {
      const std::string run = any_run();
      const unsigned how = rng() % 3;
      CAPTURE(seed, step, run, how);
      if (how == 0) {
        test::run(run);
      } else if (how == 1) {  // killed at a random point
        test::run("timeout -s KILL 0." + std::to_string(rng() % 10) + " " + run);
      } else {  // two at once
        test::run("(" + run + ") & (" + any_run() + "); wait");
      }
    }
    // The final run with the default options, as the two shards: together they cover every file.
    CAPTURE(seed);
    for (const char* shard : {" --shard 0/2", " --shard 1/2"})
      CHECK(test::run(tree(src, dst) + shard).exit_code == 0);
    CHECK(outputs(dst) == expected);
    const auto r = test::run(tree(src, dst));
    CHECK_THAT(r.err, Contains("0 file(s) translated, 4 already done, 0 retranslated (stale), 0 failed"));
  }
}
