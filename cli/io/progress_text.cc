#include "cli/io/progress_text.h"

#include <algorithm>
#include <cstdio>

#include "core/utf8_chars.h"

namespace cli {
namespace {

// Terminal columns of UTF-8 text, taken as one per code point (file names are printable_path'd).
std::size_t columns(const std::string& text) { return core::count_code_points(text); }

std::string head_columns(const std::string& text, std::size_t n) {
  return std::string(core::first_code_points(text, n));
}

std::string tail_columns(const std::string& text, std::size_t n) {
  return std::string(core::last_code_points(text, n));
}

std::string decimal(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

// The line for `s`, naming its file `file_name` (perhaps shortened); the rate only `with_rate`.
std::string compose(const ProgressState& s, const std::string& file_name, bool with_rate) {
  std::string t;
  if (s.total_files > 0) {
    t += s.finished ? "[" + std::to_string(s.total_files) + (s.total_files == 1 ? " file] " : " files] ")
                    : "[file " + std::to_string(s.file_number) + "/" + std::to_string(s.total_files) + "] ";
    if (!s.finished && !file_name.empty()) t += file_name + "  ";
  }
  t += format_bytes(s.bytes, s.total_bytes);
  const int percent = progress_percent(s);
  if (percent >= 0) t += " (" + std::to_string(percent) + "%)";
  if (s.finished) t += "  " + std::to_string(s.lines) + (s.lines == 1 ? " line" : " lines");
  t += "  " + std::to_string(s.sentences) + (s.sentences == 1 ? " sentence" : " sentences");
  if (with_rate && s.sentences > 0 && s.seconds > 0)
    t += "  " + decimal(s.sentences / s.seconds) + " sentences/s";
  if (s.finished) {
    t += "  in " + format_duration(s.seconds);
  } else if (percent >= 0 && s.bytes > 0 && s.bytes < s.total_bytes && s.seconds >= 1) {
    // The rate so far holds for the rest: bytes track the work better than lines of any length.
    t += "  ETA " + format_duration(static_cast<double>(s.total_bytes - s.bytes) * s.seconds / s.bytes);
  }
  return t;
}

}  // namespace

std::string format_bytes(std::uint64_t done, std::uint64_t total) {
  const std::uint64_t scale_by = total > 0 ? total : done;
  const char* unit = "B";
  double divisor = 1;
  if (scale_by >= 1000000000) {
    unit = "GB", divisor = 1e9;
  } else if (scale_by >= 1000000) {
    unit = "MB", divisor = 1e6;
  } else if (scale_by >= 1000) {
    unit = "kB", divisor = 1e3;
  }
  const auto amount = [&](std::uint64_t bytes) {
    return divisor == 1 ? std::to_string(bytes) : decimal(static_cast<double>(bytes) / divisor);
  };
  if (total == 0) return amount(done) + " " + unit;
  return amount(std::min(done, total)) + "/" + amount(total) + " " + unit;
}

std::string format_duration(double seconds) {
  char buf[32];
  if (seconds < 9.95) {
    std::snprintf(buf, sizeof buf, "%.1fs", std::max(seconds, 0.0));
    return buf;
  }
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lds", s);
  }
  return buf;
}

int progress_percent(const ProgressState& s) {
  if (s.total_bytes == 0) return -1;
  return static_cast<int>(std::min(s.bytes, s.total_bytes) * 100 / s.total_bytes);
}

std::string progress_text(const ProgressState& state, std::size_t max_columns) {
  std::string text = compose(state, state.file_name, true);
  if (max_columns == 0 || columns(text) <= max_columns) return text;
  // Too wide: the rate goes first (the ETA says more), then the start of the file name, then the end.
  text = compose(state, state.file_name, false);
  if (columns(text) <= max_columns) return text;
  const std::size_t excess = columns(text) - max_columns;
  const std::size_t name = columns(state.file_name);
  if (name > 0 && state.total_files > 0 && !state.finished) {
    // Keep the name's end (the file itself), at least a few columns of it.
    const std::size_t keep = name > excess + 3 ? name - excess - 3 : std::min<std::size_t>(name, 8);
    text = compose(state, "..." + tail_columns(state.file_name, keep), false);
  }
  return columns(text) <= max_columns ? text : head_columns(text, max_columns);
}

}  // namespace cli
