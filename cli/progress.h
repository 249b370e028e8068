// One-line progress display on stderr, only when stderr is a terminal (never in logs or pipes).
#pragma once

#include <chrono>
#include <cstdint>

namespace cli {

// "[ 3/10 files] 12345 lines  4.2s": redrawn in place ("\r" + clear to end of line) at most ~10
// times a second. Not thread-safe: call from the thread that writes output. Write failures on
// stderr are ignored (progress must never break a run).
class ProgressBar {
 public:
  // Enabled iff isatty(fd), unless `force` (tests). total_files 0 = single stream: no file count.
  explicit ProgressBar(std::uint64_t total_files, int fd = 2, bool force = false);
  // Calls finish().
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void add_lines(std::uint64_t n);
  void file_done();
  // Erases the bar; call before printing a warning to stderr. The next update redraws it.
  void clear();
  // Draws the final state and ends the line; later updates do nothing.
  void finish();

  bool enabled() const { return enabled_; }

 private:
  void draw(bool force);

  using Clock = std::chrono::steady_clock;
  int fd_;
  bool enabled_;
  bool visible_ = false;
  bool finished_ = false;
  std::uint64_t total_files_;
  std::uint64_t files_done_ = 0;
  std::uint64_t lines_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace cli
