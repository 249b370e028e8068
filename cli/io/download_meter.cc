#include "cli/io/download_meter.h"

#include <unistd.h>

#include "cli/io/progress_text.h"

namespace cli {

namespace {

void write_best_effort(int fd, const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n <= 0) return;  // progress is best effort
    at += static_cast<size_t>(n);
  }
}

std::string rate(double bytes, double seconds) {
  return seconds > 0 ? format_bytes(static_cast<uint64_t>(bytes / seconds), 0) + "/s" : "-";
}

}  // namespace

DownloadMeter::DownloadMeter(int fd) : fd_(fd), terminal_(::isatty(fd) == 1) {}

double DownloadMeter::seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void DownloadMeter::update(uint64_t done, uint64_t total) {
  if (first_done_ == UINT64_MAX) first_done_ = done;
  last_done_ = done;
  total_ = total;
  if (!terminal_) return;
  const Clock::time_point now = Clock::now();
  if (drawn_ && now - last_draw_ < kRedraw && done < total) return;
  last_draw_ = now;
  const double elapsed = seconds();
  const double fetched = static_cast<double>(done - first_done_);
  std::string line = "\r\x1b[K" + format_bytes(done, total);
  if (total > 0) line += " (" + std::to_string(done * 100 / total) + "%)";
  line += "  " + rate(fetched, elapsed);
  if (fetched > 0 && total > done) line += "  ETA " + format_duration((total - done) * elapsed / fetched);
  write_best_effort(fd_, line);
  drawn_ = true;
}

void DownloadMeter::finish(const std::string& subject) {
  if (drawn_) write_best_effort(fd_, "\r\x1b[K");
  const double elapsed = seconds();
  const uint64_t fetched = first_done_ == UINT64_MAX ? 0 : last_done_ - first_done_;
  const uint64_t total = total_;
  write_best_effort(fd_, subject + ": " + format_bytes(fetched, total) + " downloaded in " +
                             format_duration(elapsed) + " (" + rate(static_cast<double>(fetched), elapsed) +
                             ")\n");
}

}  // namespace cli
