#include "documents/cue_timing.h"

namespace documents {
namespace {

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// `[hh:]mm:ss[.,]mmm` at the start of `text` (spaces before it skipped); -1 when it is not one.
long long parse_timestamp(std::string_view text) {
  size_t i = text.find_first_not_of(" \t");
  if (i == std::string_view::npos) return -1;
  long long fields[3] = {0, 0, 0};
  int count = 0;
  while (true) {
    if (i >= text.size() || !is_ascii_digit(text[i]) || count == 3) return -1;
    long long value = 0;
    for (int digits = 0; i < text.size() && is_ascii_digit(text[i]) && digits < 9; ++i, ++digits)
      value = value * 10 + (text[i] - '0');
    fields[count++] = value;
    if (i < text.size() && text[i] == ':') {
      ++i;
      continue;
    }
    break;
  }
  if (count < 2 || i >= text.size() || (text[i] != '.' && text[i] != ',')) return -1;
  ++i;
  long long millis = 0;
  int digits = 0;
  for (; i < text.size() && is_ascii_digit(text[i]) && digits < 3; ++i, ++digits)
    millis = millis * 10 + (text[i] - '0');
  if (digits != 3) return -1;
  const long long hours = count == 3 ? fields[0] : 0;
  const long long minutes = fields[count - 2], seconds = fields[count - 1];
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
}

}  // namespace

bool is_timing_line(std::string_view line) {
  const size_t arrow = line.find("-->");
  if (arrow == std::string_view::npos) return false;
  const std::string_view before = line.substr(0, arrow), after = line.substr(arrow + 3);
  const auto has_digit = [](std::string_view s) {
    for (char c : s) {
      if (is_ascii_digit(c)) return true;
    }
    return false;
  };
  return has_digit(before) && has_digit(after);
}

bool parse_timing(std::string_view line, long long* start_ms, long long* end_ms) {
  const size_t arrow = line.find("-->");
  if (arrow == std::string_view::npos) return false;
  const long long start = parse_timestamp(line.substr(0, arrow));
  const long long end = parse_timestamp(line.substr(arrow + 3));
  if (start < 0 || end < 0) return false;
  *start_ms = start;
  *end_ms = end;
  return true;
}

}  // namespace documents
