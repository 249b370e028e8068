// cli::walk_files, is_probably_binary, sharding and resume checks.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli/files/file_walker.h"
#include "cli/files/shard.h"
#include "cli/io/io_error.h"
#include "core/error.h"
#include "core/regular_file.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> relatives(const cli::WalkResult& result) {
  std::vector<std::string> out;
  for (const auto& f : result.files) out.push_back(f.relative);
  return out;
}

bool any_warning(const cli::WalkResult& result, const std::string& needle) {
  for (const auto& w : result.warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("file_walker: nested folders in sorted relative-path order", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("z.txt", "z\n");
  dir.write("b/d/e.txt", "e\n");
  dir.write("b/c.txt", "c\n");
  dir.write("a.txt", "a\n");
  dir.write("a-c", "x\n");
  dir.write("a/b", "x\n");
  dir.write("empty.txt", "");
  fs::create_directories(dir.file("b/empty_dir"));
  auto result = cli::walk_files(dir.path());
  CHECK(relatives(result) == Names{"a-c", "a.txt", "a/b", "b/c.txt", "b/d/e.txt", "empty.txt", "z.txt"});
  CHECK(result.warnings.empty());
  CHECK(result.files[3].path == dir.file("b/c.txt"));
  CHECK(result.files[3].size == 2);
  // A trailing slash on the root changes nothing.
  CHECK(relatives(cli::walk_files(dir.path() + "/")) == relatives(result));
  CHECK(cli::walk_files(dir.path() + "/").files[0].path == dir.file("a-c"));
}

TEST_CASE("file_walker: glob on basename or relative path", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("a.txt", "a\n");
  dir.write("a.md", "a\n");
  dir.write("docs/b.txt", "b\n");
  dir.write("docs/deep/c.txt", "c\n");
  cli::WalkOptions options;
  options.glob = "*.txt";
  CHECK(relatives(cli::walk_files(dir.path(), options)) == Names{"a.txt", "docs/b.txt", "docs/deep/c.txt"});
  options.glob = "docs/*.txt";
  CHECK(relatives(cli::walk_files(dir.path(), options)) == Names{"docs/b.txt"});
  options.glob = "docs/*/*";
  CHECK(relatives(cli::walk_files(dir.path(), options)) == Names{"docs/deep/c.txt"});
  options.glob = "**/*.txt";  // any depth, none included
  CHECK(relatives(cli::walk_files(dir.path(), options)) == Names{"a.txt", "docs/b.txt", "docs/deep/c.txt"});
  options.glob = "*.none";
  CHECK(cli::walk_files(dir.path(), options).files.empty());
}

TEST_CASE("file_walker: list_others lists what the glob and the binary check leave out",
          "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("a.txt", "a\n");
  dir.write("docs/b.css", "b {}\n");
  dir.write("logo.png", std::string("PNG\0\1\2", 6));
  cli::WalkOptions options;
  options.glob = "*.txt";
  options.list_others = true;
  const cli::WalkResult result = cli::walk_files(dir.path(), options);
  CHECK(relatives(result) == Names{"a.txt"});
  std::vector<std::string> others;
  for (const auto& f : result.others) others.push_back(f.relative);
  CHECK(others == Names{"docs/b.css", "logo.png"});
  options.glob.clear();
  const cli::WalkResult all = cli::walk_files(dir.path(), options);
  REQUIRE(all.others.size() == 1);
  CHECK(all.others[0].relative == "logo.png");
  CHECK(!any_warning(all, "binary"));
  options.list_others = false;
  CHECK(cli::walk_files(dir.path(), options).others.empty());
}

TEST_CASE("file_walker: the output directory inside the input is skipped", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("in.txt", "a\n");
  dir.write("out/in.txt", "translated\n");
  dir.write("out/sub/x.txt", "translated\n");
  cli::WalkOptions options;
  options.exclude_dir = dir.path() + "/./out/";  // any spelling of it
  const auto result = cli::walk_files(dir.path(), options);
  CHECK(relatives(result) == Names{"in.txt"});
  CHECK(result.warnings ==
        Names{dir.file("out") + ": skipped: the output directory (its files are not input)"});
  options.exclude_dir = dir.file("not-yet-created");
  CHECK(relatives(cli::walk_files(dir.path(), options)).size() == 3);
}

TEST_CASE("file_walker: every distinct path is listed, loops and links out of the tree are skipped",
          "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("real/f.txt", "f\n");
  dir.write("real/g.txt", "g\n");
  fs::create_directory_symlink("..", dir.file("real/up"));         // loop back to the root
  fs::create_directory_symlink(dir.path(), dir.file("real/abs"));  // same, absolute
  fs::create_directory_symlink("real", dir.file("alias"));         // an in-tree directory under another name
  fs::create_symlink("real/f.txt", dir.file("f-link.txt"));        // the same file again
  fs::create_hard_link(dir.file("real/g.txt"), dir.file("real/g-hard.txt"));
  fs::create_symlink("self", dir.file("self"));  // a symlink pointing at itself
  auto result = cli::walk_files(dir.path());
  // Each name gets its own entry (and so its own output).
  CHECK(relatives(result) == Names{"alias/f.txt", "alias/g-hard.txt", "alias/g.txt", "f-link.txt",
                                   "real/f.txt", "real/g-hard.txt", "real/g.txt"});
  for (const char* loop : {"real/up", "real/abs", "alias/up", "alias/abs"}) {
    CAPTURE(loop);
    CHECK(any_warning(result, dir.file(std::string(loop) + ": skipped: symlink loop")));
  }
  CHECK(any_warning(result, dir.file("self: skipped: symlink loop")));
  CHECK(result.warnings.size() == 5);
  CHECK(result.links_skipped == 5);

  // Links leading out of the tree are not input: skipped, named, counted.
  test::TempDir outside;
  outside.write("o.txt", "o\n");
  fs::create_directory_symlink(outside.path(), dir.file("ext"));
  fs::create_symlink(outside.file("o.txt"), dir.file("ext-file.txt"));
  result = cli::walk_files(dir.path());
  CHECK(relatives(result).size() == 7);
  CHECK(any_warning(result, dir.file("ext: skipped: symlink leads outside the input directory")));
  CHECK(any_warning(result, dir.file("ext-file.txt: skipped: symlink leads outside the input directory")));
  CHECK(result.links_skipped == 7);
}

TEST_CASE("file_walker: directories below the depth limit are skipped and counted", "[cli][file_walker]") {
  test::TempDir dir;
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "d/";
  dir.write("top.txt", "t\n");
  dir.write(deep + "bottom.txt", "b\n");
  auto result = cli::walk_files(dir.path());
  CHECK(relatives(result) == Names{"top.txt"});
  CHECK(result.too_deep == 1);
  CHECK(result.warnings.size() == 1);
  CHECK(any_warning(result, "more than 64 directories deep"));
}

TEST_CASE("file_walker: open_regular refuses what stopped being a regular file, without blocking",
          "[cli][file_walker]") {
  test::TempDir dir;
  REQUIRE(::mkfifo((dir.file("fifo")).c_str(), 0644) == 0);  // no writer: a blocking open would hang
  int err = 0;
  CHECK_FALSE(core::try_open_regular_file(dir.file("fifo"), &err).valid());
  CHECK(err == EINVAL);
  CHECK(core::try_open_regular_file(dir.write("f.txt", "x"), &err).valid());
  CHECK(err == 0);
}

TEST_CASE("file_walker: dangling links, FIFOs and binaries are skipped with warnings", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("good.txt", "hello\n");
  dir.write("latin1.txt",
            "caf\xE9 cr\xE8me br\xFBl\xE9"
            "e, na\xEFve fa\xE7"
            "ade\n");
  dir.write("nul.bin", std::string("\x7F"
                                   "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
                                   16));  // an ELF header
  fs::create_symlink("nowhere", dir.file("dangling.txt"));
  REQUIRE(::mkfifo(dir.file("fifo.txt").c_str(), 0644) == 0);  // opening it would block forever
  auto result = cli::walk_files(dir.path());
  CHECK(relatives(result) == Names{"good.txt", "latin1.txt"});
  CHECK(any_warning(result, dir.file("dangling.txt: skipped: dangling symlink")));
  CHECK(any_warning(result, dir.file("fifo.txt: skipped: not a regular file")));
  CHECK(any_warning(result, dir.file("nul.bin: skipped: looks like a binary file")));
  CHECK(result.warnings.size() == 3);

  cli::WalkOptions keep_binary;
  keep_binary.skip_binary = false;
  CHECK(relatives(cli::walk_files(dir.path(), keep_binary)) == Names{"good.txt", "latin1.txt", "nul.bin"});
}

TEST_CASE("file_walker: unreadable entries are failures", "[cli][file_walker]") {
  // Root reads everything: as root (as CI runs), the walk runs as nobody over a tree nobody owns.
  test::TempDir dir;
  dir.write("ok.txt", "x\n");
  dir.write("secret.txt", "x\n");
  dir.write("closed/inner.txt", "x\n");
  if (::geteuid() == 0) {
    REQUIRE(::chown(dir.path().c_str(), test::kNobody, test::kNobody) == 0);
    for (const auto& entry : fs::recursive_directory_iterator(dir.path()))
      REQUIRE(::lchown(entry.path().c_str(), test::kNobody, test::kNobody) == 0);
  }
  const std::string seen = test::run_unprivileged([&] {
    ::chmod(dir.file("secret.txt").c_str(), 0);
    ::chmod(dir.file("closed").c_str(), 0);
    const auto result = cli::walk_files(dir.path());
    ::chmod(dir.file("closed").c_str(), 0755);
    std::string out;
    for (const auto& name : relatives(result)) out += "file " + name + "\n";
    for (const auto& failure : result.failures) out += "failure " + failure + "\n";
    return out;
  });
  CHECK(seen == "file ok.txt\nfailure " + dir.file("closed") +
                    ": cannot open directory: Permission denied\n" + "failure " + dir.file("secret.txt") +
                    ": cannot open for reading: Permission denied\n");
}

TEST_CASE("file_walker: our manifests, locks and their temp files are not input", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("a.txt", "a\n");
  dir.write(".nmt-manifest.json", "{\"nmt_manifest\":2}\n");
  dir.write("sub/.nmt-manifest.0-of-2.json", "{\"nmt_manifest\":2}\n");
  dir.write(".nmt-manifest.json.lock", "");
  dir.write("..nmt-manifest.json.tmp.0badcafe.1.abcdef", "{\n");
  dir.write(".nmt-notes.txt", "mine\n");
  CHECK(relatives(cli::walk_files(dir.path())) == Names{".nmt-notes.txt", "a.txt"});
}

TEST_CASE("file_walker: a bad root is an error", "[cli][file_walker]") {
  test::TempDir dir;
  CHECK_THROWS_WITH(cli::walk_files(dir.file("missing")),
                    dir.file("missing: cannot read input directory: No such file or directory"));
  dir.write("file.txt", "x");
  CHECK_THROWS_WITH(cli::walk_files(dir.file("file.txt")), dir.file("file.txt: not a directory"));
}

TEST_CASE("is_probably_binary", "[cli][file_walker]") {
  test::TempDir dir;
  std::mt19937 rng(7);
  std::string noise(8192, '\0');
  for (char& c : noise) c = static_cast<char>(1 + rng() % 255);  // random, but without NUL
  std::string utf8_text;
  while (utf8_text.size() < 20000)
    utf8_text +=
        "Gr\xC3\xBC\xC3\x9F"
        "e \xE2\x80\x94 \xE4\xBD\xA0\xE5\xA5\xBD\n";
  CHECK_FALSE(cli::is_probably_binary(dir.write("empty", "")));
  CHECK_FALSE(cli::is_probably_binary(dir.write("utf8", utf8_text)));  // 8 KiB cut mid-character is fine
  CHECK_FALSE(cli::is_probably_binary(dir.write("tabs", "a\tb\r\n\x1b[1mbold\x1b[0m\f\n")));
  CHECK(cli::is_probably_binary(dir.write("nul", std::string("\0\0text\0", 7))));
  CHECK_FALSE(cli::is_probably_binary(dir.write("stray_nul", std::string("a line of text\0\n", 16))));
  CHECK_FALSE(cli::is_probably_binary(dir.write("utf16_bom", std::string("\xFF\xFEh\0i\0\n\0", 8))));
  CHECK_FALSE(cli::is_probably_binary(dir.write("gzip", std::string("\x1F\x8B\x08\0\0\0\0\0", 8))));
  CHECK(cli::is_probably_binary(dir.write("noise", noise)));
  CHECK(cli::is_probably_binary(dir.write("utf16", std::string("h\0i\0\n\0", 6))));
  CHECK_THROWS_WITH(cli::is_probably_binary(dir.file("missing")),
                    Catch::StartsWith(dir.file("missing: cannot open")));
}

TEST_CASE("shard: every file in exactly one shard, bytes balanced, same split everywhere", "[cli][shard]") {
  std::vector<cli::InputFile> files;
  std::mt19937 rng(11);
  for (int i = 0; i < 200; ++i) {
    cli::InputFile f{"/in/" + std::to_string(i), "dir/file" + std::to_string(i) + ".txt"};
    f.size = 1 + rng() % 100000;
    files.push_back(f);
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.relative < b.relative; });
  for (int n = 1; n <= 5; ++n) {
    CAPTURE(n);
    std::map<std::string, int> owner;
    std::vector<std::uint64_t> bytes(n, 0);
    for (int i = 0; i < n; ++i) {
      auto part = cli::shard(files, i, n);
      CHECK(part.size() > 0);
      CHECK(std::is_sorted(part.begin(), part.end(),
                           [](const auto& a, const auto& b) { return a.relative < b.relative; }));
      for (const auto& f : part) {
        CHECK(owner.emplace(f.relative, i).second);  // never in two shards
        bytes[i] += f.size;
      }
    }
    CHECK(owner.size() == files.size());  // and never in none
    const auto [lightest, heaviest] = std::minmax_element(bytes.begin(), bytes.end());
    CHECK(*heaviest - *lightest <= 100000);  // within the largest file's size
    // Input order does not matter: every machine lists the tree its own way.
    auto shuffled = files;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    for (int i = 0; i < n; ++i) {
      for (const auto& f : cli::shard(shuffled, i, n)) CHECK(owner.at(f.relative) == i);
    }
  }
  CHECK(cli::shard(files, 0, 1).size() == files.size());
  CHECK_THROWS_AS(cli::shard(files, 2, 2), std::invalid_argument);
  // Pinned: largest first to the lightest shard, ties by path then by shard index.
  std::vector<cli::InputFile> small = {
      {"", "a", 0, 0, 5}, {"", "b", 0, 0, 3}, {"", "c", 0, 0, 3}, {"", "d", 0, 0, 1}};
  CHECK(cli::assign_shards(small, 2) == std::vector<int>{0, 1, 1, 0});
}

TEST_CASE("parse_shard", "[cli][shard]") {
  CHECK(cli::parse_shard("0/1").index == 0);
  CHECK(cli::parse_shard("0/1").count == 1);
  CHECK(cli::parse_shard("3/4").index == 3);
  CHECK(cli::parse_shard("3/4").count == 4);
  CHECK(cli::parse_shard("007/10").index == 7);
  for (const char* bad : {"", "1", "/", "4/4", "5/4", "-1/4", "0/0", "a/b", "1/2/3", " 1/2", "1/2 ", "+1/2",
                          "1/", "/2", "9999999999/2", "0x1/2"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(cli::parse_shard(bad), core::UsageError);
  }
  CHECK_THROWS_WITH(
      cli::parse_shard("4/4"),
      "--shard '4/4': i must be less than n (shards are numbered from 0) (expected i/n with 0 <= i "
      "< n, e.g. 0/4)");
}

TEST_CASE("output_is_complete", "[cli][file_walker]") {
  test::TempDir dir;
  CHECK_FALSE(cli::output_is_complete(dir.file("out.txt")));
  dir.write(".out.txt.tmp.0123abcd.123.AbCdEf", "partial");  // a crashed run's temp file is not output
  CHECK_FALSE(cli::output_is_complete(dir.file("out.txt")));
  dir.write("out.txt", "");
  CHECK(cli::output_is_complete(dir.file("out.txt")));  // empty input, empty output: done
  CHECK_FALSE(cli::output_is_complete(dir.file("missing/out.txt")));
  fs::create_directory(dir.file("d"));
  CHECK_THROWS_WITH(cli::output_is_complete(dir.file("d")),
                    dir.file("d: output path exists but is not a regular file"));
  CHECK_THROWS_AS(cli::output_is_complete(dir.file("out.txt/x")), cli::IoError);  // ENOTDIR
}

TEST_CASE("file_walker: output dir equal to the input dir is a usage error", "[cli][file_walker]") {
  test::TempDir dir;
  dir.write("a.txt", "a\n");
  cli::WalkOptions options;
  options.exclude_dir = dir.path() + "/.";
  CHECK_THROWS_AS(cli::walk_files(dir.path(), options), core::UsageError);
}

TEST_CASE("path_is_within", "[cli][file_walker]") {
  test::TempDir dir;
  fs::create_directories(dir.file("in/sub"));
  fs::create_directory_symlink(dir.file("in"), dir.file("link"));
  CHECK(cli::path_is_within(dir.file("in"), dir.file("in")));
  CHECK(cli::path_is_within(dir.file("in/sub"), dir.file("in")));
  CHECK(cli::path_is_within(dir.file("link/sub"), dir.file("in")));  // through a symlink
  CHECK(cli::path_is_within(dir.file("in/sub/../sub/"), dir.file("link/")));
  CHECK(cli::path_is_within(dir.file("in/new/deeper"), dir.file("in")));  // not created yet
  CHECK(cli::path_is_within(dir.file("in/new/.."), dir.file("in")));
  CHECK_FALSE(cli::path_is_within(dir.file("in"), dir.file("in/sub")));
  CHECK_FALSE(cli::path_is_within(dir.file("in2"), dir.file("in")));  // a prefix is not a parent
  CHECK_FALSE(cli::path_is_within(dir.file("in/new/../.."), dir.file("in")));
  CHECK(cli::path_is_within(dir.file("anything"), "/"));
}
