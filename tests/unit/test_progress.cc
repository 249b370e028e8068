// cli::ProgressBar: silent unless wanted, redraws in place; bytes, %, rate and ETA.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "cli/progress.h"

namespace {
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, n);
  return out;
}
}  // namespace

TEST_CASE("progress: draws only when enabled", "[cli][progress]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  CHECK_FALSE(cli::ProgressBar::wanted(false, false, fds[1]));  // a pipe is not a terminal
  CHECK(cli::ProgressBar::wanted(true, false, fds[1]));         // --progress
  CHECK_FALSE(cli::ProgressBar::wanted(true, true, fds[1]));    // --quiet wins
  {
    cli::ProgressBar off({3, 0}, false, fds[1]);
    off.update(10, 0);
    off.file_done();
  }
  {
    cli::ProgressBar on({2, 0}, true, fds[1]);
    on.update(5, 0);  // first update draws at once
    on.file_done();   // within 100 ms: no redraw
    on.clear();
    on.update(12, 0);  // redraws after clear
    on.file_done();
    on.finish();
    on.update(13, 0);  // after finish: nothing
  }
  ::close(fds[1]);
  std::string out = drain(fds[0]);
  ::close(fds[0]);
  CHECK(out.find("\r[0/2 files] 5 lines") == 0);
  CHECK(out.find("\r\x1b[K\r[1/2 files] 12 lines") != std::string::npos);
  CHECK(out.find("[2/2 files] 12 lines") != std::string::npos);
  CHECK(out.back() == '\n');
  CHECK(out.find("13 lines") == std::string::npos);
}

TEST_CASE("progress: bytes, percent, rate and ETA", "[cli][progress]") {
  {
    cli::ProgressBar file({0, 4000000}, false);  // a regular input file of 4 MB
    file.update(300, 1000000);
    CHECK(file.text(10.0) == "1.0/4.0 MB (25%)  300 lines  30.0 sentences/s  ETA 30s");
    file.update(900, 3000000);
    CHECK(file.text(200.0) == "3.0/4.0 MB (75%)  900 lines  4.5 sentences/s  ETA 1m07s");
    file.update(1200, 4000000);
    CHECK(file.text(400.0) == "4.0/4.0 MB (100%)  1200 lines  3.0 sentences/s");  // done: no ETA
  }
  {
    cli::ProgressBar pipe({0, 0}, false);  // stdin from a pipe: size unknown
    pipe.update(50, 12345);
    CHECK(pipe.text(2.0) == "50 lines  25.0 sentences/s");
  }
  {
    cli::ProgressBar tree({10, 2000000}, false);
    tree.file_done();
    tree.file_done();
    tree.file_done();
    tree.update(100, 500000);
    CHECK(tree.text(7200.0) == "[3/10 files] 0.5/2.0 MB (25%)  100 lines  0.0 sentences/s  ETA 6h00m");
  }
}
