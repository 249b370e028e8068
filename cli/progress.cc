#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/output_file.h"  // write_all

namespace cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::string megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", bytes / 1e6);
  return buf;
}

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lds", s);
  }
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(ProgressTotals totals, bool enabled, int fd)
    : fd_(fd), enabled_(enabled), totals_(totals), start_(Clock::now()) {
  last_draw_ = start_ - kRedrawInterval;
}

ProgressBar::~ProgressBar() { finish(); }

bool ProgressBar::wanted(bool force, bool quiet, int fd) {
  if (quiet) return false;
  return force || ::isatty(fd) == 1;
}

void ProgressBar::update(std::uint64_t lines, std::uint64_t bytes) {
  lines_ = lines;
  bytes_ = bytes;
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

std::string ProgressBar::text(double seconds) const {
  std::string t;
  if (totals_.files > 0) {
    t += "[" + std::to_string(files_done_) + "/" + std::to_string(totals_.files) + " files] ";
  }
  if (totals_.bytes > 0) {
    const std::uint64_t done = std::min(bytes_, totals_.bytes);
    t += megabytes(done) + "/" + megabytes(totals_.bytes) + " MB (" +
         std::to_string(done * 100 / totals_.bytes) + "%)  ";
  }
  t += std::to_string(lines_) + " lines";
  if (seconds > 0) {
    char rate[48];
    std::snprintf(rate, sizeof rate, "  %.1f sentences/s", lines_ / seconds);
    t += rate;
  }
  if (totals_.bytes > 0 && bytes_ > 0 && seconds > 0 && bytes_ < totals_.bytes) {
    t += "  ETA " + duration(static_cast<double>(totals_.bytes - bytes_) * seconds / bytes_);
  }
  return t;
}

void ProgressBar::draw(bool force) {
  if (!enabled_ || finished_) return;
  Clock::time_point now = Clock::now();
  if (!force && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  write_all(fd_, "\r" + text(std::chrono::duration<double>(now - start_).count()) + "\x1b[K");
  visible_ = true;
}

}  // namespace cli
