// cli::ProgressBar and its text: units that fit, rate and ETA, movement within a read window, redraws
// on a terminal and throttled plain lines elsewhere.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "cli/io/progress.h"

namespace {

using cli::ProgressBar;
using cli::ProgressStyle;

// A pipe standing in for stderr: what the bar writes, read back after the writer is done.
class Capture {
 public:
  Capture() {
    REQUIRE(::pipe(fds_) == 0);
    ::fcntl(fds_[0], F_SETFL, O_NONBLOCK);
  }
  ~Capture() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int fd() const { return fds_[1]; }
  // Everything written so far.
  std::string take() {
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds_[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }

 private:
  int fds_[2];
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// Pretends the translator got through `share` of a window's tokens and `sentences` sentences.
void translated(pipeline::TranslateProgress* counter, double share, std::uint64_t sentences) {
  counter->total_tokens = 1000;
  counter->done_tokens = static_cast<std::uint64_t>(share * 1000);
  counter->done_sentences = sentences;
}

}  // namespace

TEST_CASE("progress: sizes in the unit that fits", "[cli][progress]") {
  CHECK(cli::format_bytes(0, 0) == "0 B");
  CHECK(cli::format_bytes(512, 900) == "512/900 B");
  CHECK(cli::format_bytes(300, 1234) == "0.3/1.2 kB");
  CHECK(cli::format_bytes(12345, 0) == "12.3 kB");  // total unknown: what was read
  CHECK(cli::format_bytes(1000000, 4000000) == "1.0/4.0 MB");
  CHECK(cli::format_bytes(3100000000, 12000000000) == "3.1/12.0 GB");
  CHECK(cli::format_bytes(5000, 4000) == "4.0/4.0 kB");  // never past the total
  CHECK(cli::format_duration(4.24) == "4.2s");
  CHECK(cli::format_duration(45) == "45s");
  CHECK(cli::format_duration(67) == "1m07s");
  CHECK(cli::format_duration(21600) == "6h00m");
}

TEST_CASE("progress: sentences, percent, rate and ETA", "[cli][progress]") {
  cli::ProgressState file;
  file.total_bytes = 4000000;
  file.bytes = 1000000;
  file.sentences = 300;
  file.seconds = 10;
  CHECK(cli::progress_text(file) == "1.0/4.0 MB (25%)  300 sentences  30.0 sentences/s  ETA 30s");
  file.seconds = 0.5;  // too early for an ETA worth reading
  CHECK(cli::progress_text(file) == "1.0/4.0 MB (25%)  300 sentences  600.0 sentences/s");
  file.bytes = 4000000, file.sentences = 1200, file.lines = 1100, file.seconds = 400, file.finished = true;
  CHECK(cli::progress_text(file) ==
        "4.0/4.0 MB (100%)  1100 lines  1200 sentences  3.0 sentences/s  in 6m40s");

  cli::ProgressState small;  // the 300-line file: no more "0.0/0.0 MB"
  small.total_bytes = 8890;
  small.bytes = 2963;
  small.sentences = 100;
  small.seconds = 2;
  CHECK(cli::progress_text(small) == "3.0/8.9 kB (33%)  100 sentences  50.0 sentences/s  ETA 4.0s");

  cli::ProgressState pipe;  // stdin from a pipe: size unknown
  pipe.bytes = 12345;
  pipe.sentences = 50;
  pipe.seconds = 2;
  CHECK(cli::progress_text(pipe) == "12.3 kB  50 sentences  25.0 sentences/s");
  pipe.sentences = 0;
  CHECK(cli::progress_text(pipe) == "12.3 kB  0 sentences");

  cli::ProgressState tree;
  tree.total_files = 10, tree.file_number = 3, tree.file_name = "docs/a.txt";
  tree.total_bytes = 2000000, tree.bytes = 500000, tree.sentences = 100, tree.seconds = 7200;
  CHECK(cli::progress_text(tree) ==
        "[file 3/10] docs/a.txt  0.5/2.0 MB (25%)  100 sentences  0.0 sentences/s  ETA 6h00m");
  tree.finished = true, tree.bytes = 2000000, tree.lines = 90;
  CHECK(cli::progress_text(tree) ==
        "[10 files] 2.0/2.0 MB (100%)  90 lines  100 sentences  0.0 sentences/s  in 2h00m");
}

TEST_CASE("progress: a line fits the terminal, the file name keeps its end", "[cli][progress]") {
  cli::ProgressState tree;
  tree.total_files = 2, tree.file_number = 1;
  tree.file_name = "a/very/long/directory/name/for/the/test/chapter-01.txt";
  tree.total_bytes = 2000, tree.bytes = 1000, tree.sentences = 5, tree.seconds = 1;
  const std::string full = cli::progress_text(tree);
  CHECK(full.size() > 80);
  const std::string fitted = cli::progress_text(tree, 100);
  CHECK(fitted.size() == 100);
  CHECK(fitted.find("...") != std::string::npos);
  CHECK(fitted.find("chapter-01.txt  1.0/2.0 kB (50%)  5 sentences  ETA 1.0s") != std::string::npos);
  const std::string no_rate = cli::progress_text(tree, 110);  // dropping the rate is enough
  CHECK(no_rate == "[file 1/2] " + tree.file_name + "  1.0/2.0 kB (50%)  5 sentences  ETA 1.0s");
  CHECK(cli::progress_text(tree, 20).size() == 20);               // narrower than the counts: cut at the end
  tree.file_name = "\xc3\xa9t\xc3\xa9/" + std::string(100, 'x');  // UTF-8: cut between characters
  const std::string utf8 = cli::progress_text(tree, 60);
  CHECK(utf8.find("\xc3\xa9") == std::string::npos);
  CHECK(utf8.find("[file 1/2] ...xxx") == 0);
}

TEST_CASE("progress: on by default on a terminal unless the run uses it", "[cli][progress]") {
  Capture pipe;
  CHECK(ProgressBar::style_for(false, false, false, pipe.fd()) == ProgressStyle::kOff);   // a log: off
  CHECK(ProgressBar::style_for(true, false, false, pipe.fd()) == ProgressStyle::kLines);  // --progress
  CHECK(ProgressBar::style_for(true, true, false, pipe.fd()) == ProgressStyle::kOff);     // --quiet wins
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    if (master >= 0) ::close(master);
    WARN("no pseudo-terminal here: the terminal cases are not checked");
    return;
  }
  const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(terminal >= 0);
  CHECK(ProgressBar::style_for(false, false, false, terminal) == ProgressStyle::kRedraw);
  // Typed input or translations on the same terminal would mix with the bar: off unless forced.
  CHECK(ProgressBar::style_for(false, false, true, terminal) == ProgressStyle::kOff);
  CHECK(ProgressBar::style_for(true, false, true, terminal) == ProgressStyle::kRedraw);
  CHECK(ProgressBar::style_for(false, true, false, terminal) == ProgressStyle::kOff);
  ::close(terminal);
  ::close(master);
}

TEST_CASE("progress: moves within a read window as batches finish", "[cli][progress]") {
  Capture out;
  ProgressBar bar({0, 10000}, ProgressStyle::kRedraw, out.fd(), std::chrono::milliseconds(0));
  pipeline::TranslateProgress* counter = bar.start_window(0, 4000);
  CHECK(bar.state(1).bytes == 0);
  translated(counter, 0.25, 30);
  CHECK(bar.state(1).bytes == 1000);
  CHECK(bar.state(1).sentences == 30);
  translated(counter, 1.0, 100);
  bar.update(100, 4000);  // the window is written
  counter = bar.start_window(4000, 10000);
  CHECK(bar.state(2).bytes == 4000);
  CHECK(bar.state(2).sentences == 100);  // the last window's count stays
  translated(counter, 0.5, 20);
  CHECK(bar.state(3).bytes == 7000);
  CHECK(bar.state(3).sentences == 120);
}

TEST_CASE("progress: a terminal gets one line redrawn in place, messages above it", "[cli][progress]") {
  Capture out;
  {
    ProgressBar bar({3, 3000}, ProgressStyle::kRedraw, out.fd(), std::chrono::milliseconds(0));
    bar.start_file("a.txt");
    translated(bar.start_window(0, 1000), 0.5, 4);
    bar.tick(0.25);
    CHECK(out.take() == "\r[file 1/3] a.txt  0.5/3.0 kB (16%)  4 sentences  16.0 sentences/s\x1b[K");
    bar.print("nmt: warning: something");
    CHECK(out.take() == "\r\x1b[Knmt: warning: something\n");
    bar.update(10, 1000);
    bar.start_file("b.txt");  // shown at once, not a file late
    bar.tick(0.5);
    CHECK(out.take() == "\r[file 2/3] b.txt  1.0/3.0 kB (33%)  4 sentences  8.0 sentences/s\x1b[K");
    bar.update(10, 3000);
    bar.finish();
    const std::string final_line = out.take();
    CHECK(final_line.find("[3 files] 3.0/3.0 kB (100%)  10 lines  4 sentences") != std::string::npos);
    CHECK(final_line.back() == '\n');
    bar.tick(1);  // after finish: nothing
    bar.update(11, 3000);
  }
  CHECK(out.take().empty());
  {
    ProgressBar bar({0, 0}, ProgressStyle::kRedraw, out.fd(), std::chrono::milliseconds(0));
    bar.tick(0.25);
  }  // ends without finish (an error): the bar is erased, no final line
  CHECK(out.take() == "\r0 B  0 sentences\x1b[K\r\x1b[K");
}

TEST_CASE("progress: plain lines for a log, at 10% steps or every 10 s", "[cli][progress]") {
  Capture out;
  {
    // 20 s at 5% a second, drawn 4 times a second as the timer would.
    ProgressBar bar({0, 1000}, ProgressStyle::kLines, out.fd(), std::chrono::milliseconds(0));
    pipeline::TranslateProgress* counter = bar.start_window(0, 1000);
    for (int t = 1; t <= 80; ++t) {
      translated(counter, t / 80.0, static_cast<std::uint64_t>(t));
      bar.tick(t * 0.25);
    }
    bar.update(80, 1000);
    bar.finish();
  }
  const std::string steps = out.take();
  CHECK(steps.find('\r') == std::string::npos);
  CHECK(steps.find('\x1b') == std::string::npos);
  CHECK(count(steps, "\n") == 11);  // 10%, 20%, ... 100%, and the final line
  CHECK(steps.find("nmt: 0.1/1.0 kB (10%)  8 sentences") == 0);
  CHECK(steps.find("nmt: 1.0/1.0 kB (100%)  80 lines  80 sentences") != std::string::npos);
  {
    // Half the input in the first 0.3 s: one line, not five, and not before a second has passed.
    ProgressBar bar({0, 1000}, ProgressStyle::kLines, out.fd(), std::chrono::milliseconds(0));
    pipeline::TranslateProgress* counter = bar.start_window(0, 1000);
    translated(counter, 0.5, 10);
    bar.tick(0.3);
    CHECK(out.take().empty());
    bar.tick(1.0);
    CHECK(out.take() == "nmt: 0.5/1.0 kB (50%)  10 sentences  10.0 sentences/s  ETA 1.0s\n");
  }
  {
    // Size unknown (a pipe): one line every 10 s.
    ProgressBar bar({0, 0}, ProgressStyle::kLines, out.fd(), std::chrono::milliseconds(0));
    for (int t = 1; t <= 100; ++t) bar.tick(t * 0.25);
  }
  const std::string timed = out.take();
  CHECK(count(timed, "\n") == 2);
  CHECK(timed.find('\r') == std::string::npos);
}

TEST_CASE("progress: the timer draws without being called", "[cli][progress]") {
  Capture out;
  {
    ProgressBar bar({0, 1000}, ProgressStyle::kRedraw, out.fd(), std::chrono::milliseconds(10));
    translated(bar.start_window(0, 1000), 0.3, 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    bar.finish();
  }
  const std::string drawn = out.take();
  CHECK(count(drawn, "\r0.3/1.0 kB (30%)  3 sentences") >= 2);
  CHECK(drawn.back() == '\n');
  ProgressBar off({0, 1000}, ProgressStyle::kOff, out.fd(), std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  off.finish();
  CHECK(out.take().empty());
}
