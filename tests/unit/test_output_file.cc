// cli::AtomicOutputFile and cli::StdoutWriter: all-or-nothing files, exact endings, write errors.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <set>
#include <string>

#include "cli/io/io_error.h"
#include "cli/io/line_reader.h"
#include "cli/io/output_file.h"
#include "test_support.h"

namespace {

std::set<std::string> list_dir(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Everything available on a pipe's read end (the writer has been closed).
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, n);
  return out;
}

}  // namespace

TEST_CASE("output_file: commit makes the file appear complete, temp file gone", "[cli][output_file]") {
  test::TempDir dir;
  std::string path = dir.file("out.txt");
  {
    cli::AtomicOutputFile out(path, /*buffer_size=*/3);
    // ".NAME.tmp.HOST.PID.XXXXXX": HOST 8 hex digits, XXXXXX random
    const std::string temp = out.temp_path().substr(dir.path().size() + 1);
    CHECK(temp.rfind(".out.txt.tmp.", 0) == 0);
    CHECK(temp.size() == std::string(".out.txt.tmp.").size() + 9 + std::to_string(::getpid()).size() + 7);
    CHECK(temp.find("." + std::to_string(::getpid()) + ".") ==
          temp.size() - 8 - std::to_string(::getpid()).size());
    CHECK(list_dir(dir.path()) == std::set<std::string>{temp});
    out.write_line("a", cli::LineEnding::kCrLf);
    out.write_line("b", cli::LineEnding::kLf);
    out.write("raw");
    out.write_line("c", cli::LineEnding::kNone);
    CHECK_FALSE(std::filesystem::exists(path));  // nothing under the final name before commit
    out.commit();
    CHECK(out.committed());
    CHECK_THROWS_AS(out.commit(), std::logic_error);
    CHECK_THROWS_AS(out.write("x"), std::logic_error);
  }
  CHECK(test::read_file(path) == "a\r\nb\nrawc");
  CHECK(list_dir(dir.path()) == std::set<std::string>{"out.txt"});
}

TEST_CASE("output_file: without commit there is no final file and no temp file", "[cli][output_file]") {
  test::TempDir dir;
  std::string path = dir.file("out.txt");
  {
    cli::AtomicOutputFile out(path);
    out.write(std::string(200000, 'x'));  // some of it reached the disk
  }
  CHECK(list_dir(dir.path()).empty());

  dir.write("keep.txt", "old");
  {
    cli::AtomicOutputFile out(dir.file("keep.txt"));
    out.write("new");
  }
  CHECK(test::read_file(dir.file("keep.txt")) == "old");  // an abandoned run never clobbers
  {
    cli::AtomicOutputFile out(dir.file("keep.txt"));
    out.write("new");
    out.commit();
  }
  CHECK(test::read_file(dir.file("keep.txt")) == "new");
  CHECK(list_dir(dir.path()) == std::set<std::string>{"keep.txt"});
}

TEST_CASE("output_file: two writers for one name use different temp files", "[cli][output_file]") {
  test::TempDir dir;
  cli::AtomicOutputFile a(dir.file("x"));
  cli::AtomicOutputFile b(dir.file("x"));
  CHECK(a.temp_path() != b.temp_path());
  std::string long_name(255, 'n');  // the temp name must still fit in NAME_MAX
  cli::AtomicOutputFile c(dir.file(long_name));
  c.write("ok");
  c.commit();
  CHECK(test::read_file(dir.file(long_name)) == "ok");
}

TEST_CASE("output_file: line endings round-trip byte for byte", "[cli][output_file]") {
  test::TempDir dir;
  const std::string input = "first\r\nsecond\n\r\n  \nno newline";
  auto reader = cli::LineReader::from_string(input, "<in>", {3});
  cli::AtomicOutputFile out(dir.file("copy.txt"));
  cli::Line line;
  while (reader.next(line)) out.write_line(line.text, line.ending);
  out.commit();
  CHECK(test::read_file(dir.file("copy.txt")) == input);
}

TEST_CASE("output_file: a newline inside a translation cannot split the line", "[cli][output_file]") {
  std::string out;
  cli::append_line(out, "two\nlines", cli::LineEnding::kCrLf);
  CHECK(out == "two lines\r\n");
}

TEST_CASE("output_file: errors name the final path and the reason", "[cli][output_file]") {
  test::TempDir dir;
  std::string missing_dir = dir.file("no/such/dir/out.txt");
  CHECK_THROWS_WITH(cli::AtomicOutputFile(missing_dir), missing_dir + ": cannot create temporary file in " +
                                                            dir.path() +
                                                            "/no/such/dir: No such file or directory");
  dir.write("file", "x");
  CHECK_THROWS_WITH(cli::AtomicOutputFile(dir.file("file/out.txt")),
                    Catch::Contains("Not a directory") && Catch::StartsWith(dir.file("file/out.txt: ")));
  CHECK_THROWS_WITH(cli::AtomicOutputFile(dir.file("dir/")), dir.file("dir/: not a file name"));
  // commit() onto a directory fails at the rename, and the temp file is cleaned up
  std::filesystem::create_directory(dir.file("taken"));
  std::filesystem::create_directory(dir.file("taken/sub"));
  {
    cli::AtomicOutputFile out(dir.file("taken"));
    out.write("x");
    CHECK_THROWS_WITH(out.commit(), Catch::StartsWith(dir.file("taken: cannot rename ")));
  }
  CHECK(list_dir(dir.path()) == std::set<std::string>{"file", "taken"});
  // A read-only directory. Root ignores permissions: as root, nobody owns it and tries.
  std::filesystem::create_directory(dir.file("ro"));
  if (::geteuid() == 0) {
    REQUIRE(::chown(dir.path().c_str(), test::kNobody, test::kNobody) == 0);
    REQUIRE(::chown(dir.file("ro").c_str(), test::kNobody, test::kNobody) == 0);
  }
  std::filesystem::permissions(dir.file("ro"),
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const std::string refused = test::run_unprivileged([&] {
    try {
      cli::AtomicOutputFile out(dir.file("ro/out.txt"));
      return std::string("opened");
    } catch (const cli::IoError& e) {
      return std::string(e.what());
    }
  });
  CHECK_THAT(refused, Catch::StartsWith(dir.file("ro/out.txt: ")) && Catch::Contains("Permission denied"));
}

TEST_CASE("output_file: a failing write (file size limit) throws and is never committed",
          "[cli][output_file]") {
  test::TempDir dir;
  std::string path = dir.file("big.txt");
  rlimit old_limit;
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // so write() returns EFBIG instead of killing us
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  {
    cli::AtomicOutputFile out(path, 1024);
    CHECK_THROWS_WITH(out.write(std::string(10000, 'x')), path + ": write failed: File too large");
    CHECK_THROWS_WITH(out.commit(), path + ": not committed: an earlier write failed");
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  CHECK(list_dir(dir.path()).empty());
}

TEST_CASE("stdout_writer: a full device gives ENOSPC as IoError", "[cli][output_file]") {
  if (::geteuid() != 0) return test::skip("needs root to mknod a private full device");
  test::TempDir dir;
  const std::string full = dir.file("full");  // a private node with /dev/full's numbers, never /dev/full
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  int fd = ::open(full.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    cli::StdoutWriter out(fd, "<stdout>");
    out.write_line("hello", cli::LineEnding::kLf);
    try {
      out.flush();
      FAIL("no exception");
    } catch (const cli::BrokenPipe&) {
      FAIL("ENOSPC is not a broken pipe");
    } catch (const cli::IoError& e) {
      CHECK(std::string(e.what()) == "<stdout>: write failed: No space left on device");
    }
  }
  ::close(fd);
}

TEST_CASE("stdout_writer: a closed pipe throws BrokenPipe, every time", "[cli][output_file]") {
  cli::ignore_sigpipe();
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);
  {
    cli::StdoutWriter out(fds[1]);
    out.write("data\n");
    CHECK_THROWS_AS(out.flush(), cli::BrokenPipe);
    CHECK_THROWS_WITH(out.flush(), "<stdout>: broken pipe (the reader went away)");
    CHECK_THROWS_AS(out.write("more"), cli::BrokenPipe);
    CHECK_THROWS_AS(out.write_line("x", cli::LineEnding::kLf),
                    cli::IoError);  // unaware handlers see an I/O error
  }                                 // the destructor must not throw or write after the pipe broke
  ::close(fds[1]);
}

TEST_CASE("stdout_writer: writes reach the fd on flush and on destruction", "[cli][output_file]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  {
    cli::StdoutWriter out(fds[1]);
    out.write_line("a", cli::LineEnding::kCrLf);
    out.flush();
    out.write_line("b", cli::LineEnding::kNone);
  }
  ::close(fds[1]);
  CHECK(drain(fds[0]) == "a\r\nb");
  ::close(fds[0]);
}

TEST_CASE("ensure_parent_dir creates missing directories", "[cli][output_file]") {
  test::TempDir dir;
  cli::ensure_parent_dir(dir.file("a/b/c/out.txt"));
  CHECK(std::filesystem::is_directory(dir.file("a/b/c")));
  cli::ensure_parent_dir(dir.file("a/b/c/out.txt"));  // already there: fine
  cli::ensure_parent_dir("relative-file.txt");        // no directory part: nothing to do
  dir.write("f", "x");
  CHECK_THROWS_WITH(cli::ensure_parent_dir(dir.file("f/g/out.txt")),
                    dir.file("f: exists and is not a directory"));
}
