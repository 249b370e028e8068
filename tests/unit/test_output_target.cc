// cli::OutputTarget and core/temp_files: -o never replaces a node that is not a regular file, keeps a
// replaced file's mode and owner, fails before any work on a bad place; stale temp files are found.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "cli/io/io_error.h"
#include "cli/io/output_target.h"
#include "core/temp_files.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

std::set<std::string> list_dir(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

void write_two_lines(cli::OutputTarget& out) {
  out.write_line("one", cli::LineEnding::kLf);
  out.flush();
  out.write_line("two", cli::LineEnding::kLf);
  out.commit();
}

// A pid that existed and is gone: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("output_target: a regular file is replaced whole, its mode and owner kept",
          "[cli][output_target]") {
  test::TempDir dir;
  const std::string path = dir.write("out.txt", "old\n");
  REQUIRE(::chmod(path.c_str(), 0640) == 0);
  const bool root = ::geteuid() == 0;
  if (root) REQUIRE(::chown(path.c_str(), 1234, 5678) == 0);
  auto out = cli::OutputTarget::open(path);
  CHECK_FALSE(out.writes_through());
  write_two_lines(out);
  CHECK(test::read_file(path) == "one\ntwo\n");
  const struct stat st = lstat_of(path);
  CHECK(S_ISREG(st.st_mode));
  CHECK((st.st_mode & 07777) == 0640);
  if (root) {
    CHECK(st.st_uid == 1234);
    CHECK(st.st_gid == 5678);
  }
  CHECK(list_dir(dir.path()) == std::set<std::string>{"out.txt"});
}

TEST_CASE("output_target: a symlink stays a symlink and its target is written", "[cli][output_target]") {
  test::TempDir dir;
  fs::create_directory(dir.file("real"));
  const std::string target = dir.write("real/target.txt", "old\n");
  REQUIRE(::chmod(target.c_str(), 0600) == 0);
  fs::create_symlink("real/target.txt", dir.file("link"));  // relative, from the link's directory
  auto out = cli::OutputTarget::open(dir.file("link"));
  CHECK(out.resolved_path() == dir.file("real/target.txt"));
  write_two_lines(out);
  CHECK(S_ISLNK(lstat_of(dir.file("link")).st_mode));
  CHECK(test::read_file(target) == "one\ntwo\n");
  CHECK((lstat_of(target).st_mode & 07777) == 0600);
  // A dangling symlink: the file is created where it points.
  fs::create_symlink(dir.file("real/new.txt"), dir.file("dangling"));
  auto fresh = cli::OutputTarget::open(dir.file("dangling"));
  write_two_lines(fresh);
  CHECK(S_ISLNK(lstat_of(dir.file("dangling")).st_mode));
  CHECK(test::read_file(dir.file("real/new.txt")) == "one\ntwo\n");
  // A loop is an error naming the path.
  fs::create_symlink(dir.file("loop_b"), dir.file("loop_a"));
  fs::create_symlink(dir.file("loop_a"), dir.file("loop_b"));
  CHECK_THROWS_WITH(cli::OutputTarget::open(dir.file("loop_a")),
                    Catch::StartsWith(dir.file("loop_a")) && Catch::Contains("symbolic links"));
}

TEST_CASE("output_target: a FIFO is written through, in order, per batch, and stays a FIFO",
          "[cli][output_target]") {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char buf[256];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) received.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
  });
  {
    auto out = cli::OutputTarget::open(fifo);
    CHECK(out.writes_through());
    write_two_lines(out);
  }
  reader.join();
  CHECK(received == "one\ntwo\n");
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(list_dir(dir.path()) == std::set<std::string>{"fifo"});
}

TEST_CASE("output_target: a FIFO whose reader left is an error naming it, not a quiet exit",
          "[cli][output_target]") {
  cli::ignore_sigpipe();  // as nmt's main does: the write must see EPIPE, not kill the test
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread reader([&] { ::close(::open(fifo.c_str(), O_RDONLY)); });  // opens and leaves at once
  auto out = cli::OutputTarget::open(fifo);
  reader.join();
  out.write_line("one", cli::LineEnding::kLf);
  try {
    out.flush();
    FAIL("no exception");
  } catch (const cli::BrokenPipe&) {
    FAIL("a named FIFO's EPIPE must name the path");
  } catch (const cli::IoError& e) {
    CHECK(std::string(e.what()) == fifo + ": write failed: Broken pipe");
  }
}

TEST_CASE("output_target: character devices are written through, never replaced", "[cli][output_target]") {
  if (::geteuid() != 0) return test::skip("needs root to mknod private null and full devices");
  test::TempDir dir;
  const std::string null_node = dir.file("null"),
                    full_node = dir.file("full");  // private nodes, never /dev/*
  REQUIRE(::mknod(null_node.c_str(), S_IFCHR | 0620, makedev(1, 3)) == 0);
  REQUIRE(::chmod(null_node.c_str(), 0620) == 0);  // exactly, whatever the umask
  REQUIRE(::mknod(full_node.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  auto out = cli::OutputTarget::open(null_node);
  write_two_lines(out);
  const struct stat st = lstat_of(null_node);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
  CHECK((st.st_mode & 07777) == 0620);
  auto full = cli::OutputTarget::open(full_node);
  full.write_line("one", cli::LineEnding::kLf);
  CHECK_THROWS_WITH(full.flush(), full_node + ": write failed: No space left on device");
  CHECK(S_ISCHR(lstat_of(full_node).st_mode));
  CHECK(list_dir(dir.path()) == std::set<std::string>{"full", "null"});
}

TEST_CASE("output_target: a directory, a missing parent, an unwritable place fail at open",
          "[cli][output_target]") {
  test::TempDir dir;
  fs::create_directory(dir.file("sub"));
  CHECK_THROWS_WITH(cli::OutputTarget::open(dir.file("sub")),
                    Catch::StartsWith(dir.file("sub: is a directory")));
  CHECK_THROWS_WITH(cli::OutputTarget::open(dir.file("no/such/out.txt")),
                    Catch::StartsWith(dir.file("no/such/out.txt: cannot write here")) &&
                        Catch::Contains("No such file or directory"));
  dir.write("file", "x");
  CHECK_THROWS_WITH(cli::OutputTarget::open(dir.file("file/out.txt")), Catch::Contains("Not a directory"));
  CHECK(list_dir(dir.path()) == std::set<std::string>{"file", "sub"});
}

TEST_CASE("temp_files: names, O_EXCL, stale detection by host and dead pid", "[cli][output_target]") {
  test::TempDir dir;
  std::string a, b;
  core::UniqueFd fa = core::create_temp_file(dir.path(), "x.txt", &a);
  core::UniqueFd fb = core::create_temp_file(dir.path(), "x.txt", &b);
  REQUIRE(fa.valid());
  REQUIRE(fb.valid());
  CHECK(a != b);
  const std::string own = a.substr(dir.path().size() + 1);
  CHECK_FALSE(core::is_stale_temp_name(own));  // our own pid is alive
  // The same name with a dead pid: stale; with pid 1 (alive): not; another host's: never ours to judge.
  const std::string pid = std::to_string(::getpid());
  const std::string host = own.substr(std::string(".x.txt.tmp.").size(), 8);
  const std::string dead = ".x.txt.tmp." + host + "." + std::to_string(dead_pid()) + ".Ab12Cd";
  CHECK(core::is_stale_temp_name(dead));
  CHECK_FALSE(core::is_stale_temp_name(".x.txt.tmp." + host + ".1.Ab12Cd"));
  const std::string other_host = host == "00000000" ? "11111111" : "00000000";
  CHECK_FALSE(
      core::is_stale_temp_name(".x.txt.tmp." + other_host + "." + std::to_string(dead_pid()) + ".Ab12Cd"));
  for (const std::string& not_ours :
       {std::string("x.txt"), std::string(".tmp.") + host + ".99999999.Ab12Cd",
        ".x.txt.tmp." + host + ".12x.Ab12Cd", ".x.txt.tmp." + host + ".12.Ab1"}) {
    CAPTURE(not_ours);
    CHECK_FALSE(core::is_stale_temp_name(not_ours));
  }
  dir.write(dead, "partial");
  dir.write("keep.txt", "mine");
  CHECK(core::remove_stale_temp_files(dir.path()) == 1);
  CHECK(list_dir(dir.path()) == std::set<std::string>{own, b.substr(dir.path().size() + 1), "keep.txt"});
  // O_EXCL|O_NOFOLLOW: a symlink planted under a temp name is never followed (create_temp_file picks
  // random names, so plant one and check open() with the same flags refuses it).
  fs::create_symlink(dir.file("keep.txt"), dir.file(".planted"));
  CHECK(::open((dir.file(".planted")).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) < 0);
  CHECK(test::read_file(dir.file("keep.txt")) == "mine");
}

TEST_CASE("temp_files: registered files are removed by the signal path", "[cli][output_target]") {
  test::TempDir dir;
  const std::string a = dir.write("a", "x"), b = dir.write("b", "y");
  const int slot_a = core::register_temp_file(a);
  const int slot_b = core::register_temp_file(b);
  REQUIRE(slot_a >= 0);
  REQUIRE(slot_b >= 0);
  core::unregister_temp_file(slot_b);  // committed: no longer ours to remove
  core::remove_registered_temp_files();
  core::unregister_temp_file(slot_a);
  CHECK(list_dir(dir.path()) == std::set<std::string>{"b"});
}

TEST_CASE("output_target: names of open descriptors are written through, never resolved and replaced",
          "[cli][output_target]") {
  for (const char* alias : {"/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/3", "/proc/123/fd/1",
                            "/proc/thread-self/fd/0"}) {
    CAPTURE(alias);
    CHECK(cli::is_descriptor_alias(alias));
  }
  for (const char* other : {"/dev/null", "/dev/full", "/proc/self/fdinfo/1", "/proc/abc/fd/1",
                            "/tmp/dev/stdout", "dev/stdout", "/dev/fdx"}) {
    CAPTURE(other);
    CHECK_FALSE(cli::is_descriptor_alias(other));
  }
}
