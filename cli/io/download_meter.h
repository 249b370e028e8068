// Download progress on stderr: a bar redrawn in place on a terminal (bytes, rate, ETA), and one summary
// line at the end whatever stderr is.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cli {

class DownloadMeter {
 public:
  // Draws only when `fd` is a terminal.
  explicit DownloadMeter(int fd = 2);
  // `done` of `total` bytes so far; redraws at most every kRedraw.
  void update(uint64_t done, uint64_t total);
  // Erases the bar and writes "SUBJECT: 1.2/1.2 MB downloaded in 3.4s (360 kB/s)": the bytes fetched
  // now (not those found in the cache) of the total.
  void finish(const std::string& subject);

  static constexpr std::chrono::milliseconds kRedraw{250};

 private:
  double seconds() const;
  using Clock = std::chrono::steady_clock;
  const int fd_;
  const bool terminal_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  uint64_t first_done_ = UINT64_MAX;  // bytes already there when the meter started (cache, resume)
  uint64_t last_done_ = 0, total_ = 0;
  bool drawn_ = false;
};

}  // namespace cli
