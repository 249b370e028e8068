#include "models/long_input.h"

namespace models {

namespace {

enum Level { kSentence, kClause, kSpace, kCharacter };

bool is_boundary(const std::string& s, size_t i, Level level) {
  const char c = s[i];
  const bool next_is_space = i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t');
  switch (level) {
    case kSentence: return (c == '.' || c == '!' || c == '?') && next_is_space;
    case kClause: return (c == ',' || c == ';' || c == ':') && next_is_space;
    case kSpace: return c == ' ' || c == '\t';
    case kCharacter: return i + 1 >= s.size() || (static_cast<unsigned char>(s[i + 1]) & 0xC0) != 0x80;
  }
  return false;
}

// Units whose concatenation is `text`; each ends at a boundary of the level (plus following spaces).
std::vector<std::string> units(const std::string& text, Level level) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_boundary(text, i, level)) continue;
    size_t end = i + 1;
    while (level != kCharacter && end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    out.push_back(text.substr(start, end - start));
    start = end;
    i = end - 1;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

void split(const std::string& text, int limit, Level level, const std::function<int(const std::string&)>& count,
           std::vector<std::string>& out) {
  auto emit = [&](const std::string& piece) {
    const std::string t = trim(piece);
    if (t.empty()) return;
    if (count(t) <= limit || level == kCharacter) {
      out.push_back(t);
    } else {
      split(t, limit, static_cast<Level>(level + 1), count, out);
    }
  };
  std::string current;
  for (const std::string& unit : units(text, level)) {
    const std::string candidate = current + unit;
    if (current.empty() || count(trim(candidate)) <= limit) {
      current = candidate;
    } else {
      emit(current);
      current = unit;
    }
  }
  emit(current);
}

}  // namespace

std::vector<std::string> split_long_line(const std::string& line, int limit,
                                         const std::function<int(const std::string&)>& count) {
  std::vector<std::string> out;
  split(line, limit, kSentence, count, out);
  return out;
}

}  // namespace models
