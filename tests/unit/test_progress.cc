// cli::ProgressBar: silent unless on a terminal (forced here), redraws in place.
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
  {
    cli::ProgressBar off(3, fds[1]);  // a pipe is not a terminal
    CHECK_FALSE(off.enabled());
    off.add_lines(10);
    off.file_done();
  }
  {
    cli::ProgressBar on(2, fds[1], /*force=*/true);
    on.add_lines(5);  // first update draws at once
    on.file_done();   // within 100 ms: no redraw
    on.clear();
    on.add_lines(7);  // redraws after clear
    on.file_done();
    on.finish();
    on.add_lines(1);  // after finish: nothing
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
