#include "documents/markdown_layout.h"

#include <algorithm>

namespace documents {

size_t code_points(std::string_view text) {
  return static_cast<size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

MarkdownLayout measure_layout(std::string_view text, size_t begin, size_t end, bool wrapped,
                              std::string continuation, std::string line_end) {
  MarkdownLayout layout;
  const size_t first = begin == 0 ? 0 : text.rfind('\n', begin - 1) + 1;
  layout.first_column = code_points(text.substr(first, begin - first));
  if (!wrapped) return layout;
  layout.continuation = std::move(continuation);
  layout.line_end = std::move(line_end);
  const size_t last = std::min(text.find('\n', end), text.size());
  for (size_t i = first; i < last;) {
    const size_t line_end_at = std::min(text.find('\n', i), last);
    std::string_view line = text.substr(i, line_end_at - i);
    // A hard break's trailing spaces or backslash take no column of the text.
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\\'))
      line.remove_suffix(1);
    layout.width = std::max(layout.width, code_points(line));
    i = line_end_at + 1;
  }
  return layout;
}

size_t front_matter_length(std::string_view text) {
  if (text.substr(0, 4) != "---\n" && text.substr(0, 5) != "---\r\n") return 0;
  for (size_t i = text.find('\n') + 1; i < text.size();) {
    const size_t nl = text.find('\n', i);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(i, end - i);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    if (line == "---" || line == "...") return end;
    i = end;
  }
  return 0;
}

}  // namespace documents
