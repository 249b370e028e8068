#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/output_file.h"  // write_all

namespace cli {
namespace {
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(std::uint64_t total_files, int fd, bool force)
    : fd_(fd), enabled_(force || ::isatty(fd) == 1), total_files_(total_files), start_(Clock::now()) {
  last_draw_ = start_ - kRedrawInterval;
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::add_lines(std::uint64_t n) {
  lines_ += n;
  draw(false);
}

void ProgressBar::file_done() {
  ++files_done_;
  draw(false);
}

void ProgressBar::clear() {
  if (!enabled_ || !visible_) return;
  write_all(fd_, "\r\x1b[K");
  visible_ = false;
  last_draw_ = Clock::now() - kRedrawInterval;  // redraw on the next update
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  draw(true);
  write_all(fd_, "\n");
  finished_ = true;
}

void ProgressBar::draw(bool force) {
  if (!enabled_ || finished_) return;
  Clock::time_point now = Clock::now();
  if (!force && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  char text[160];
  if (total_files_ > 0) {
    std::snprintf(text, sizeof text, "\r[%llu/%llu files] %llu lines  %.1fs\x1b[K",
                  static_cast<unsigned long long>(files_done_), static_cast<unsigned long long>(total_files_),
                  static_cast<unsigned long long>(lines_), seconds);
  } else {
    std::snprintf(text, sizeof text, "\r%llu lines  %.1fs\x1b[K", static_cast<unsigned long long>(lines_),
                  seconds);
  }
  write_all(fd_, text);
  visible_ = true;
}

}  // namespace cli
