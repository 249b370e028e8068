// Progress on stderr while translate runs: redrawn in place on a terminal, plain lines for a log.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "cli/io/progress_text.h"
#include "pipeline/translate_progress.h"

namespace cli {

struct ProgressTotals {
  std::uint64_t files = 0;  // 0: one stream, no file count
  std::uint64_t bytes = 0;  // 0: unknown (stdin, a pipe): no % or ETA
};

enum class ProgressStyle {
  kOff,
  kRedraw,  // a terminal: one line redrawn in place ("\r", erase to its end) about 4 times a second
  kLines,   // not a terminal (--progress): plain lines, at each 10% step or every 10 s, no "\r" or escapes
};

// The display runs on a timer thread of its own, so it moves while a read window is translated: the
// translator's batches count into window_counter(), and a redraw costs the translation nothing.
// Everything written to stderr while a bar is up goes through print(), which keeps lines and bar apart.
class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kTick{250};

  // `tick`: how often the timer thread draws; 0 starts no thread (tests call tick() themselves).
  ProgressBar(ProgressTotals totals, ProgressStyle style, int fd = 2, std::chrono::milliseconds tick = kTick);
  // Stops the timer and erases a bar left on the terminal; no final line (that is finish()'s).
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // --progress forces it, --quiet silences it; else it shows when `fd` is a terminal and the run does not
  // use the terminal itself (`interactive`: reading typed input, or writing its translations there).
  static ProgressStyle style_for(bool force, bool quiet, bool interactive, int fd = 2);
  // Whether stream mode reads from or writes to a terminal ("-" being stdin or stdout).
  static bool interactive(const std::string& input, const std::string& output);

  // Directory mode: the next file (its path under --input-dir), counted from 1.
  void start_file(const std::string& name);
  // The read window of input bytes [from, to) goes to the translator, which counts into the returned
  // counter (set it as TranslateOptions::progress). Shown done in proportion to its tokens translated.
  pipeline::TranslateProgress* start_window(std::uint64_t from, std::uint64_t to);
  // Everything up to here is written: `lines` lines, `bytes` of input (the current window's end).
  void update(std::uint64_t lines, std::uint64_t bytes);
  // Writes `line` (and a newline) to the bar's fd, erasing the bar first; the next tick redraws it.
  void print(const std::string& line);
  // Draws the final state (totals, elapsed time) on a line of its own and stops; later calls do nothing.
  void finish();

  // What the timer thread does every tick, `seconds` after the start: draw when due.
  void tick(double seconds);
  // The state the next draw shows, `seconds` after the start.
  ProgressState state(double seconds) const;
  ProgressStyle style() const { return style_; }

 private:
  ProgressState state_locked(double seconds) const;
  void draw_locked(double seconds, bool final);
  void erase_locked();
  double elapsed() const;
  void stop_timer();

  using Clock = std::chrono::steady_clock;
  const int fd_;
  const ProgressStyle style_;
  const ProgressTotals totals_;
  const Clock::time_point start_;

  mutable std::mutex mutex_;                    // guards everything below and every write to fd_
  pipeline::TranslateProgress window_counter_;  // written by the translating threads (atomics)
  std::uint64_t window_from_ = 0, window_to_ = 0;
  std::uint64_t bytes_done_ = 0;      // of completed windows and files
  std::uint64_t sentences_done_ = 0;  // of completed windows
  std::uint64_t lines_ = 0;
  std::uint64_t file_number_ = 0;
  std::string file_name_;
  bool visible_ = false;  // kRedraw: a bar is on the terminal
  bool finished_ = false;
  double last_line_ = 0;  // kLines: when the last line went out, and at which 10% step
  int last_step_ = 0;

  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread timer_;
};

}  // namespace cli
