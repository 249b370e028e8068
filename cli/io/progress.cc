#include "cli/io/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

#include "cli/io/output_file.h"  // write_all

namespace cli {
namespace {

// kLines: a line at each 10% step, but not within a second of the last; else one every 10 s, so a log
// shows a long run alive without filling up.
constexpr double kLineInterval = 10.0;
constexpr double kStepMinInterval = 1.0;

// The terminal's width less one column (writing the last one wraps on some terminals); 80 if unknown.
std::size_t usable_columns(int fd) {
  struct winsize size {};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col - 1u;
  return 79;
}

}  // namespace

ProgressBar::ProgressBar(ProgressTotals totals, ProgressStyle style, int fd, std::chrono::milliseconds tick)
    : fd_(fd), style_(style), totals_(totals), start_(Clock::now()) {
  if (style_ == ProgressStyle::kOff || tick.count() <= 0) return;
  timer_ = std::thread([this, tick] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, tick);
      if (stopping_) break;
      draw_locked(elapsed(), false);
    }
  });
}

ProgressBar::~ProgressBar() {
  stop_timer();
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
}

ProgressStyle ProgressBar::style_for(bool force, bool quiet, bool interactive, int fd) {
  if (quiet) return ProgressStyle::kOff;
  const bool terminal = ::isatty(fd) == 1;
  if (force) return terminal ? ProgressStyle::kRedraw : ProgressStyle::kLines;
  return terminal && !interactive ? ProgressStyle::kRedraw : ProgressStyle::kOff;
}

bool ProgressBar::interactive(const std::string& input, const std::string& output) {
  return (input == "-" && ::isatty(0) == 1) || (output == "-" && ::isatty(1) == 1);
}

void ProgressBar::start_file(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++file_number_;
  file_name_ = name;
}

pipeline::TranslateProgress* ProgressBar::start_window(std::uint64_t from, std::uint64_t to) {
  std::lock_guard<std::mutex> lock(mutex_);
  sentences_done_ += window_counter_.done_sentences.load(std::memory_order_relaxed);
  window_counter_.reset();
  window_from_ = from;
  window_to_ = to;
  return &window_counter_;
}

void ProgressBar::update(std::uint64_t lines, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_ = lines;
  bytes_done_ = std::max(bytes_done_, bytes);
}

void ProgressBar::print(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  erase_locked();
  write_all(fd_, line + "\n");
}

void ProgressBar::finish() {
  stop_timer();
  std::lock_guard<std::mutex> lock(mutex_);
  if (style_ == ProgressStyle::kOff || finished_) return;
  draw_locked(elapsed(), true);
  finished_ = true;
}

void ProgressBar::tick(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  draw_locked(seconds, false);
}

ProgressState ProgressBar::state(double seconds) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_locked(seconds);
}

ProgressState ProgressBar::state_locked(double seconds) const {
  ProgressState s;
  s.total_files = totals_.files;
  s.file_number = file_number_;
  s.file_name = file_name_;
  s.total_bytes = totals_.bytes;
  s.lines = lines_;
  s.seconds = seconds;
  s.sentences = sentences_done_ + window_counter_.done_sentences.load(std::memory_order_relaxed);
  s.bytes = bytes_done_;
  const std::uint64_t total_tokens = window_counter_.total_tokens.load(std::memory_order_relaxed);
  if (window_to_ > window_from_ && total_tokens > 0) {
    const std::uint64_t done_tokens =
        std::min(total_tokens, window_counter_.done_tokens.load(std::memory_order_relaxed));
    const double share = static_cast<double>(done_tokens) / static_cast<double>(total_tokens);
    s.bytes =
        std::max(s.bytes, window_from_ + static_cast<std::uint64_t>(share * (window_to_ - window_from_)));
  }
  return s;
}

void ProgressBar::draw_locked(double seconds, bool final) {
  if (style_ == ProgressStyle::kOff || finished_) return;
  ProgressState s = state_locked(seconds);
  s.finished = final;
  if (style_ == ProgressStyle::kRedraw) {
    write_all(fd_, "\r" + progress_text(s, usable_columns(fd_)) + "\x1b[K" + (final ? "\n" : ""));
    visible_ = !final;
    return;
  }
  const int percent = progress_percent(s);
  const int step = percent < 0 ? 0 : percent / 10;
  const double since = seconds - last_line_;
  if (!final && !(step > last_step_ && since >= kStepMinInterval) && since < kLineInterval) return;
  write_all(fd_, "nmt: " + progress_text(s) + "\n");
  last_line_ = seconds;
  last_step_ = step;
}

void ProgressBar::erase_locked() {
  if (!visible_) return;
  write_all(fd_, "\r\x1b[K");
  visible_ = false;
}

double ProgressBar::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void ProgressBar::stop_timer() {
  if (!timer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  timer_.join();
}

}  // namespace cli
