#include "documents/markdown_syntax.h"

#include <cctype>

namespace documents {

std::string_view decoded_basic_entity(std::string_view entity) {
  if (entity == "&amp;") return "&";
  if (entity == "&lt;") return "<";
  if (entity == "&gt;") return ">";
  if (entity == "&quot;") return "\"";
  return {};
}

size_t after_bracketed(std::string_view text, size_t at) {
  if (at >= text.size() || (text[at] != '(' && text[at] != '[')) return at;
  const char open = text[at], close = open == '(' ? ')' : ']';
  int depth = 0;
  size_t end = at;
  for (; end < text.size(); ++end) {
    if (text[end] == '\\') {
      ++end;
      continue;
    }
    if (text[end] == open) ++depth;
    if (text[end] == close && --depth == 0) return end + 1;
  }
  return end;
}

size_t after_closing_delimiter(std::string_view text, size_t at, bool link) {
  size_t end = at;
  if (link) {
    if (end < text.size() && text[end] == ']') ++end;
    return after_bracketed(text, end);
  }
  if (end < text.size() && (text[end] == '*' || text[end] == '_' || text[end] == '~')) {
    const char delimiter = text[end];
    while (end < text.size() && text[end] == delimiter) ++end;
  }
  return end;
}

size_t alert_marker_length(std::string_view text, size_t at) {
  const size_t line_begin = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;  // npos + 1 is 0
  if (text.substr(line_begin, at - line_begin).find('>') == std::string_view::npos) return 0;
  if (text.substr(at, 2) != "[!") return 0;
  size_t i = at + 2;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
  if (i == at + 2 || i >= text.size() || text[i] != ']') return 0;
  ++i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
  if (i >= text.size() || text[i] != '\n') return 0;
  ++i;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '>')) ++i;
  return i - at;
}

}  // namespace documents
