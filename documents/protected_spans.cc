#include "documents/protected_spans.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace documents {

namespace {

const std::regex& protected_pattern() {
  static const std::regex pattern(
      R"((?:https?|ftp)://[^\s<>"]+|www\.[A-Za-z0-9-]+\.[^\s<>"]+)"
      R"(|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})"
      R"(|\{\{[^{}]*\}\}|\{%.*?%\}|<%.*?%>|\{[A-Za-z0-9_.]*\}|%(?:[0-9]+\$)?[-+ #0]?[0-9]*(?:\.[0-9]+)?[sdifuxXeEgGc@])");
  return pattern;
}

// A URL's trailing punctuation belongs to the sentence.
size_t trim_trailing_punctuation(const std::string& text, size_t begin, size_t end) {
  if (text.compare(begin, 3, "www") != 0 && text.find("://", begin) >= end) return end;
  while (end > begin && std::string_view(".,;:!?)'\"").find(text[end - 1]) != std::string_view::npos) --end;
  return end;
}

bool crosses_element(const Segment& segment, size_t begin, size_t end) {
  for (const InlineElement& e : segment.elements) {
    if ((begin < e.begin && e.begin < end) || (begin < e.end && e.end < end)) return true;
  }
  return false;
}

// libstdc++'s std::regex recurses once per character a match attempt reads (some 280 bytes of stack
// each), so the pattern reads the text a window at a time: each window ends at a space and holds at most
// kPatternWindow bytes, and a run of more than that without a space (no URL is so long) stays text.
constexpr size_t kPatternWindow = 2048;

std::vector<std::pair<size_t, size_t>> protected_matches(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = std::min(begin + kPatternWindow, text.size());
    if (end < text.size()) {
      const size_t space = text.rfind(' ', end);
      if (space == std::string::npos || space <= begin) {  // a run past the window: skipped whole
        const size_t next = text.find(' ', end);
        begin = next == std::string::npos ? text.size() : next;
        continue;
      }
      end = space;
    }
    const auto first = text.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = text.begin() + static_cast<std::ptrdiff_t>(end);
    for (auto it = std::sregex_iterator(first, last, protected_pattern()); it != std::sregex_iterator(); ++it)
      matches.emplace_back(begin + static_cast<size_t>(it->position()), static_cast<size_t>(it->length()));
    begin = end;
  }
  return matches;
}

size_t shifted(size_t offset, size_t begin, size_t end) {
  if (offset >= end) return offset - (end - begin);
  return std::min(offset, begin);
}

}  // namespace

void protect_spans(Segment& segment, const std::function<std::string(std::string_view)>& escape) {
  std::vector<std::pair<size_t, size_t>> spans;
  for (const auto& [begin, length] : protected_matches(segment.text)) {
    const size_t end = trim_trailing_punctuation(segment.text, begin, begin + length);
    if (end > begin && !crosses_element(segment, begin, end)) spans.emplace_back(begin, end);
  }
  if (spans.empty()) return;
  // Room between the orders so each new insertion takes its place among the items at its offset.
  constexpr int kGap = 1024;
  for (InlineElement& e : segment.elements) e.order *= kGap;
  for (Insertion& i : segment.insertions) i.order *= kGap;
  const size_t first_new = segment.insertions.size();
  for (size_t n = spans.size(); n-- > 0;) {  // from the end, so earlier offsets stay valid
    auto [begin, end] = spans[n];
    std::string bytes = segment.text.substr(begin, end - begin);
    if (escape) bytes = escape(bytes);
    // Elements around the span and nothing else (a link whose text is its URL) go with it, whole: as
    // elements they would be left empty beside it.
    std::string open, close;
    for (size_t e = 0; e < segment.elements.size();) {
      if (segment.elements[e].begin != begin || segment.elements[e].end != end) {
        ++e;
        continue;
      }
      open += segment.elements[e].open;
      close.insert(0, segment.elements[e].close);
      segment.elements.erase(segment.elements.begin() + static_cast<std::ptrdiff_t>(e));
    }
    bytes = open + bytes + close;
    size_t cut_begin = begin, cut_end = end;
    const bool space_before = begin > 0 && segment.text[begin - 1] == ' ';
    const bool space_after = end < segment.text.size() && segment.text[end] == ' ';
    // One space beside the span goes with it, so its words stay apart as they were: a span glued to a
    // word (`running {% if x %}in`, `dogs{{n}} run`) leaves the space beside that word, which the model
    // needs.
    const auto word_char = [&](size_t at) {
      return segment.text[at] != ' ' && !std::ispunct(static_cast<unsigned char>(segment.text[at]));
    };
    const bool glued_after = end < segment.text.size() && word_char(end);
    const bool glued_before = begin > 0 && word_char(begin - 1);
    if (space_before && !glued_after) {
      --cut_begin;
    } else if (space_after && !glued_before) {
      ++cut_end;
    }
    int order = -1;
    for (const InlineElement& e : segment.elements) {
      if (e.begin <= begin) order = std::max(order, e.order);
    }
    for (const Insertion& i : segment.insertions) {
      if (i.at <= begin) order = std::max(order, i.order);
    }
    for (InlineElement& e : segment.elements) {
      e.begin = shifted(e.begin, cut_begin, cut_end);
      e.end = shifted(e.end, cut_begin, cut_end);
    }
    for (Insertion& i : segment.insertions) i.at = shifted(i.at, cut_begin, cut_end);
    segment.text.erase(cut_begin, cut_end - cut_begin);
    segment.insertions.push_back({cut_begin, std::move(bytes), order + 1, space_before || space_after});
  }
  // Spans that end up at one offset ("{a} {b}") keep their source order: the sort keeps ties in list order.
  std::reverse(segment.insertions.begin() + static_cast<std::ptrdiff_t>(first_new), segment.insertions.end());
  std::stable_sort(
      segment.insertions.begin(), segment.insertions.end(),
      [](const Insertion& a, const Insertion& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; });
}

}  // namespace documents
