// End-to-end: the nmt binary never destroys what it writes to, cleans up after signals, resumes
// honestly and splits directory trees into balanced shards.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate() { return nmt() + " translate -m '" + model() + "' --threads 1"; }
std::string q(const std::string& path) { return "'" + path + "'"; }

std::string lines(int n, const std::string& word = "the man walks") {
  std::string text;
  for (int i = 0; i < n; ++i) text += word + " " + std::to_string(i) + "\n";
  return text;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

// Names in `dir` (recursively) that look like our temp files.
std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(e.path().string());
  }
  return found;
}

// Shell: run `command` in the foreground (so no signal starts ignored), and from the background, once a
// temp file shows up under `dir`, send it `signal`; then print its exit status.
std::string run_and_signal(const std::string& command, const std::string& dir, const std::string& signal) {
  const std::string pid_file = dir + "/../pid." + signal;
  return "(for i in $(seq 1 600); do ls -aR " + q(dir) +
         " 2>/dev/null | grep -q '\\.tmp\\.' && break; sleep 0.05; done; kill -" + signal + " $(cat " +
         q(pid_file) + ")) & sh -c 'echo $$ > \"$0\"; exec \"$@\"' " + q(pid_file) + " " + command +
         "; echo \"status $?\"; wait";
}

}  // namespace

TEST_CASE("output onto a symlink, a FIFO, a device node and a 640 file keeps node types and modes",
          "[cli][files]") {
  test::TempDir dir;
  const std::string in = dir.file("in.txt");
  test::write_file(in, "a small dog\nthe man\n");
  const auto expected = test::run(translate() + " -i " + q(in));
  REQUIRE(expected.exit_code == 0);

  // A 640 file: replaced whole, mode (and as root the owner) kept.
  const std::string file = dir.file("out.txt");
  test::write_file(file, "old\n");
  REQUIRE(::chmod(file.c_str(), 0640) == 0);
  if (::geteuid() == 0) REQUIRE(::chown(file.c_str(), 4321, 8765) == 0);
  REQUIRE(test::run(translate() + " -i " + q(in) + " -o " + q(file)).exit_code == 0);
  CHECK(test::read_file(file) == expected.out);
  CHECK((lstat_of(file).st_mode & 07777) == 0640);
  if (::geteuid() == 0) CHECK(lstat_of(file).st_uid == 4321);

  // A symlink: the target is written, the link stays.
  fs::create_symlink("out.txt", dir.file("link"));
  test::write_file(file, "old\n");
  REQUIRE(test::run(translate() + " -i " + q(in) + " -o " + q(dir.file("link"))).exit_code == 0);
  CHECK(S_ISLNK(lstat_of(dir.file("link")).st_mode));
  CHECK(test::read_file(file) == expected.out);

  // A FIFO: written through to its reader, still a FIFO.
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto via_fifo = test::run("cat " + q(fifo) + " > " + q(dir.file("from_fifo")) + " & " + translate() +
                                  " -i " + q(in) + " -o " + q(fifo) + "; wait");
  REQUIRE(via_fifo.exit_code == 0);
  CHECK(test::read_file(dir.file("from_fifo")) == expected.out);
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));

  if (::geteuid() == 0) {  // private device nodes (mknod needs root; CI runs as root)
    const std::string null_node = dir.file("null"), full_node = dir.file("full");
    REQUIRE(::mknod(null_node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
    REQUIRE(::mknod(full_node.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
    REQUIRE(test::run(translate() + " -i " + q(in) + " -o " + q(null_node)).exit_code == 0);
    CHECK(S_ISCHR(lstat_of(null_node).st_mode));
    // -q: only the error, no length-limit warnings from the fixture's random model.
    const auto full = test::run(translate() + " -q -i " + q(in) + " -o " + q(full_node));
    CHECK(full.exit_code == 1);
    CHECK(full.err == "nmt: error: " + full_node + ": write failed: No space left on device\n");
    CHECK(S_ISCHR(lstat_of(full_node).st_mode));
  }
  CHECK(temp_files(dir.path()).empty());
}

TEST_CASE("output to a directory or an impossible place fails before the model loads", "[cli][files]") {
  test::TempDir dir;
  const std::string big = dir.file("big.txt");
  test::write_file(big, lines(200000));
  fs::create_directory(dir.file("existing_dir"));
  // A missing model: reaching the model would exit 2; the output check must come first (exit 1).
  const std::string cmd = nmt() + " translate -m /no/such/model -i " + q(big) + " -o ";
  const auto start = std::chrono::steady_clock::now();
  const auto r = test::run(cmd + q(dir.file("existing_dir")));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("nmt: error: " + dir.file("existing_dir") + ": is a directory", 0) == 0);
  CHECK(count(r.err, "\n") == 1);
  CHECK(seconds < 1.0);
  const auto missing = test::run(cmd + q(dir.file("no/such/dir/out.txt")));
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Contains(dir.file("no/such/dir/out.txt")) && Contains("No such file or directory"));
  const auto under_file = test::run(cmd + q(big + "/out.txt"));
  CHECK(under_file.exit_code == 1);
  CHECK_THAT(under_file.err, Contains("Not a directory"));
  CHECK(temp_files(dir.path()).empty());
}

TEST_CASE("SIGTERM, SIGINT and SIGHUP mid-run remove our temp files and exit 143/130/129", "[cli][files]") {
  test::TempDir dir;
  const std::string in = dir.file("in.txt");
  test::write_file(in, lines(3000));
  for (const auto& [signal, status] : std::map<std::string, int>{{"TERM", 143}, {"INT", 130}, {"HUP", 129}}) {
    CAPTURE(signal);
    const std::string out_dir = dir.file("out_" + signal);
    fs::create_directory(out_dir);
    const auto r = test::run(
        run_and_signal(translate() + " -i " + q(in) + " -o " + q(out_dir + "/out.txt"), out_dir, signal));
    CHECK_THAT(r.out, Contains("status " + std::to_string(status)));
    CHECK(r.err == "nmt: interrupted by SIG" + signal + ": stopped, unfinished outputs removed\n");
    CHECK(fs::is_empty(out_dir));
  }
  // Directory mode too.
  fs::create_directories(dir.file("src/sub"));
  test::write_file(dir.file("src/sub/a.txt"), lines(3000));
  fs::create_directory(dir.file("dst"));
  auto r = test::run(run_and_signal(
      translate() + " --input-dir " + q(dir.file("src")) + " --output-dir " + q(dir.file("dst")),
      dir.file("dst"), "TERM"));
  CHECK_THAT(r.out, Contains("status 143"));
  CHECK(temp_files(dir.file("dst")).empty());
  // A signal ignored at start (nohup) stays ignored: the run finishes.
  fs::create_directory(dir.file("nohup"));
  test::write_file(in, lines(600));
  r = test::run(
      run_and_signal("nohup " + translate() + " -i " + q(in) + " -o " + q(dir.file("nohup/out.txt")),
                     dir.file("nohup"), "HUP"));
  CHECK_THAT(r.out, Contains("status 0"));
  CHECK(count(test::read_file(dir.file("nohup/out.txt")), "\n") == 600);
}

TEST_CASE("a killed run's temp files are removed by the next run in that directory", "[cli][files]") {
  test::TempDir dir;
  const std::string in = dir.file("in.txt");
  test::write_file(in, lines(3000));
  fs::create_directory(dir.file("out"));
  const std::string out = dir.file("out/out.txt");
  const auto killed =
      test::run(run_and_signal(translate() + " -i " + q(in) + " -o " + q(out), dir.file("out"), "KILL"));
  CHECK_THAT(killed.out, Contains("status 137"));
  REQUIRE(temp_files(dir.file("out")).size() == 1);  // SIGKILL cannot be caught
  test::write_file(dir.file("out/.other.txt.tmp.1"), "not ours: wrong pattern\n");
  test::write_file(in, "short\n");
  REQUIRE(test::run(translate() + " -i " + q(in) + " -o " + q(out)).exit_code == 0);
  CHECK(temp_files(dir.file("out")) == std::vector<std::string>{dir.file("out/.other.txt.tmp.1")});
}

TEST_CASE("directory mode resumes honestly: edited sources and changed options are redone", "[cli][files]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  test::write_file((fs::create_directories(src + "/d"), src + "/a.txt"), "one\ntwo\n");
  test::write_file(src + "/d/b.txt", "three\n");
  test::write_file(src + "/c.txt", "four\n");
  const std::string cmd = translate() + " --input-dir " + q(src) + " --output-dir " + q(dst);
  auto r = test::run(cmd);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("3 file(s) translated, 0 already done, 0 retranslated (stale), 0 failed"));
  CHECK(fs::exists(dst + "/.nmt-manifest.json"));
  r = test::run(cmd);
  CHECK_THAT(r.err, Contains("0 file(s) translated, 3 already done, 0 retranslated (stale), 0 failed"));

  // An edited source (same size, so only the mtime and the hash tell) is retranslated.
  test::write_file(src + "/d/b.txt", "house\n");
  r = test::run(cmd);
  CHECK_THAT(r.err, Contains("0 file(s) translated, 2 already done, 1 retranslated (stale), 0 failed"));
  const auto alone = test::run(translate(), "house\n");
  CHECK(test::read_file(dst + "/d/b.txt") == alone.out);
  // A model's card is not part of the model; its tokenizer is.
  const std::string own_model = dir.file("model");
  fs::copy(model(), own_model);
  const std::string own = nmt() + " translate -m " + q(own_model) + " --threads 1 --input-dir " + q(src) +
                          " --output-dir " + q(dst);
  r = test::run(own);
  CHECK_THAT(r.err, Contains("3 already done"));
  test::write_file(own_model + "/README.md", "# a card written after the run\n");
  r = test::run(own);
  CHECK_THAT(r.err, Contains("3 already done"));
  test::write_file(own_model + "/vocab.json", test::read_file(own_model + "/vocab.json") + "\n");
  r = test::run(own);
  CHECK_THAT(r.err, Contains("3 retranslated (stale)"));
  // Changing an output-changing option redoes everything; --overwrite too.
  r = test::run(cmd + " -b 2");
  CHECK_THAT(r.err, Contains("3 retranslated (stale)"));
  r = test::run(cmd + " -b 2 --batch-size 7");  // batch size does not change output
  CHECK_THAT(r.err, Contains("3 already done"));
  r = test::run(cmd + " -b 2 --overwrite");
  CHECK_THAT(r.err, Contains("3 file(s) translated"));
  // An output edited by hand without a manifest entry is not trusted either.
  fs::remove(dst + "/.nmt-manifest.json");
  r = test::run(cmd + " -b 2");
  CHECK_THAT(r.err, Contains("3 retranslated (stale)"));
}

TEST_CASE("2 shards of 12 unequal files: balanced lines, and together the unsharded run", "[cli][files]") {
  test::TempDir dir;
  const std::string src = dir.file("src");
  fs::create_directories(src + "/sub");
  const int sizes[12] = {1, 40, 3, 25, 8, 60, 2, 15, 33, 5, 12, 20};
  int total = 0;
  for (int i = 0; i < 12; ++i) {
    test::write_file(src + (i % 3 == 0 ? "/sub/f" : "/f") + std::to_string(i) + ".txt",
                     lines(sizes[i], "a dog"));
    total += sizes[i];
  }
  const auto whole =
      test::run(translate() + " --input-dir " + q(src) + " --output-dir " + q(dir.file("whole")));
  REQUIRE(whole.exit_code == 0);
  std::map<std::string, std::string> union_of_shards;
  for (int s = 0; s < 2; ++s) {
    const std::string out = dir.file("shard" + std::to_string(s));
    const auto r = test::run(translate() + " --input-dir " + q(src) + " --output-dir " + q(out) +
                             " --shard " + std::to_string(s) + "/2");
    REQUIRE(r.exit_code == 0);
    int shard_lines = 0;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
      const std::string relative = fs::relative(e.path(), out).string();
      const std::string text = test::read_file(e.path().string());
      CHECK(union_of_shards.emplace(relative, text).second);  // in one shard only
      shard_lines += static_cast<int>(count(text, "\n"));
    }
    CAPTURE(s, shard_lines, total);
    CHECK(shard_lines * 4 >= total);
    CHECK(shard_lines * 4 <= total * 3);
  }
  std::map<std::string, std::string> unsharded;
  for (const auto& e : fs::recursive_directory_iterator(dir.file("whole"))) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.')
      unsharded[fs::relative(e.path(), dir.file("whole")).string()] = test::read_file(e.path().string());
  }
  CHECK(unsharded.size() == 12);
  CHECK(union_of_shards == unsharded);
}

TEST_CASE("directory mode: links, loops, empty matches and vanished files are never silent", "[cli][files]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  fs::create_directories(src + "/real");
  test::write_file(src + "/real/f.txt", "a dog\n");
  fs::create_hard_link(src + "/real/f.txt", src + "/hard.txt");
  fs::create_symlink("real/f.txt", src + "/soft.txt");
  fs::create_directory_symlink("..", src + "/real/loop");
  test::write_file(dir.file("outside.txt"), "outside\n");
  fs::create_symlink(dir.file("outside.txt"), src + "/escape.txt");
  auto r = test::run(translate() + " --input-dir " + q(src) + " --output-dir " + q(dst));
  CHECK(r.exit_code == 0);
  for (const char* name : {"real/f.txt", "hard.txt", "soft.txt"})
    CHECK(fs::is_regular_file(dst + "/" + name));
  CHECK_FALSE(fs::exists(dst + "/escape.txt"));
  CHECK_THAT(r.err, Contains("nmt: warning: " + src + "/escape.txt: skipped: symlink leads outside"));
  CHECK_THAT(r.err, Contains("nmt: warning: " + src + "/real/loop: skipped: symlink loop"));
  CHECK_THAT(r.err, Contains("3 file(s) translated") && Contains("2 link(s) skipped"));
  // --quiet: no warnings, the summary stays.
  r = test::run(translate() + " -q --input-dir " + q(src) + " --output-dir " + q(dst));
  CHECK(r.err.find("warning") == std::string::npos);
  CHECK_THAT(r.err, Contains("3 already done"));

  // An empty --glob match: a warning naming the directory and exit 3.
  r = test::run(translate() + " --input-dir " + q(src) + " --output-dir " + q(dst) + " --glob '*.none'");
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Contains("nmt: warning: " + src + ": no file matches --glob '*.none'"));
  r = test::run(translate() + " -q --input-dir " + q(src) + " --output-dir " + q(dst) + " --glob '*.none'");
  CHECK(r.exit_code == 3);

  // A directory below the depth limit: the rest is translated, the skip is named, exit 3.
  std::string deep = src + "/deep";
  for (int i = 0; i < 70; ++i) deep += "/d";
  fs::create_directories(deep);
  test::write_file(deep + "/lost.txt", "a dog\n");
  r = test::run(translate() + " --input-dir " + q(src) + " --output-dir " + q(dst));
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Contains("skipped: more than 64 directories deep") && Contains("1 too-deep"));
}

TEST_CASE("directory mode: a source replaced by a FIFO after the listing fails, never hangs",
          "[cli][files]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  fs::create_directories(src);
  test::write_file(src + "/a_first.txt", lines(3000));
  test::write_file(src + "/b_later.txt", "a dog\n");
  // Once a_first.txt is being written (its temp file exists), swap b_later.txt for a FIFO nobody writes.
  const auto r = test::run("timeout 120 " + translate() + " --input-dir " + q(src) + " --output-dir " +
                           q(dst) + " & pid=$!; for i in $(seq 1 600); do ls -a " + q(dst) +
                           " 2>/dev/null | grep -q '\\.tmp\\.' && break; sleep 0.05; done; rm " +
                           q(src + "/b_later.txt") + "; mkfifo " + q(src + "/b_later.txt") +
                           "; wait $pid; echo \"status $?\"");
  CHECK_THAT(r.out, Contains("status 1\n"));
  CHECK_THAT(r.err, Contains(src + "/b_later.txt: no longer a regular file"));
  CHECK_THAT(r.err, Contains("1 file(s) translated") && Contains("1 failed"));
}

TEST_CASE("progress on a terminal: bytes and % for a file, lines for a pipe, --quiet silences it",
          "[cli][files][progress]") {
  test::TempDir dir;
  const std::string in = dir.file("in.txt");
  test::write_file(in, lines(300));
  // `script` gives nmt a terminal on stderr (and stdout).
  const auto tty =
      test::run("script -qfec " + q(translate() + " -i " + in + " -o " + dir.file("out.txt")) + " /dev/null");
  CHECK(tty.exit_code == 0);
  CHECK_THAT(tty.out, Contains("kB (100%)") && Contains("300 lines") && Contains("sentences/s"));
  const auto piped = test::run("cat " + q(in) + " | " + translate() + " --progress > /dev/null");
  CHECK_THAT(piped.err, Contains("300 lines") && Contains("sentences/s"));
  CHECK(piped.err.find("MB") == std::string::npos);  // size unknown on a pipe
  const auto quiet = test::run("script -qfec " +
                               q(translate() + " -q -i " + in + " -o " + dir.file("out.txt")) + " /dev/null");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.find("lines") == std::string::npos);
  const auto none = test::run(translate() + " -i " + q(in) + " -o " + q(dir.file("out.txt")));
  CHECK(none.err.empty());  // stderr is not a terminal: nothing
  fs::create_directories(dir.file("src"));
  test::write_file(dir.file("src/a.txt"), lines(10));
  const auto tree = test::run(translate() + " --progress --input-dir " + q(dir.file("src")) +
                              " --output-dir " + q(dir.file("dst")));
  CHECK_THAT(tree.err, Contains("[1 file]") && Contains("B (100%)"));
}
