// One-line progress display on stderr: on when stderr is a terminal (never in logs or pipes), forced
// on with --progress, off with --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cli {

struct ProgressTotals {
  std::uint64_t files = 0;  // 0: one stream, no file count
  std::uint64_t bytes = 0;  // 0: unknown (stdin, a pipe): lines and rate only, no % or ETA
};

// Stream: "1.2/4.0 MB (30%)  1234 lines  56.7 sentences/s  ETA 1m23s" (stdin: "1234 lines  56.7
// sentences/s"); directory mode: "[3/10 files] 1.2/4.0 MB (30%)  56.7 sentences/s  ETA 1m23s".
// Redrawn in place ("\r" + clear to end of line) at most ~10 times a second. Not thread-safe: call
// from the thread that writes output. Write failures on stderr are ignored (progress must never
// break a run).
class ProgressBar {
 public:
  ProgressBar(ProgressTotals totals, bool enabled, int fd = 2);
  // Calls finish().
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Whether to draw on `fd`: forced by --progress, silenced by --quiet, else iff it is a terminal.
  static bool wanted(bool force, bool quiet, int fd = 2);

  // Absolute position: sentences translated and input bytes consumed so far.
  void update(std::uint64_t lines, std::uint64_t bytes);
  void file_done();
  // Erases the bar; call before printing a warning to stderr. The next update redraws it.
  void clear();
  // Draws the final state and ends the line; later updates do nothing.
  void finish();

  bool enabled() const { return enabled_; }
  // The text of the bar for the current state (no "\r" or escape codes); for tests.
  std::string text(double seconds) const;

 private:
  void draw(bool force);

  using Clock = std::chrono::steady_clock;
  int fd_;
  bool enabled_;
  bool visible_ = false;
  bool finished_ = false;
  ProgressTotals totals_;
  std::uint64_t files_done_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t bytes_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace cli
