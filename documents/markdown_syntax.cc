#include "documents/markdown_syntax.h"

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

}  // namespace documents
