#include "documents/markdown_inline_html.h"

#include <algorithm>
#include <cctype>

namespace documents {

namespace {

// HTML's void elements: an open tag alone is the whole element.
bool is_void(const std::string& name) {
  static const char* const kVoid[] = {"area",  "base", "br",   "col",    "embed", "hr", "img",
                                      "input", "link", "meta", "source", "track", "wbr"};
  return std::find_if(std::begin(kVoid), std::end(kVoid), [&](const char* v) { return name == v; }) !=
         std::end(kVoid);
}

// Inline elements HTML never translates (documents/html_tags.cc): kept whole in Markdown too.
bool is_never_translated(const std::string& name) {
  return name == "code" || name == "kbd" || name == "samp" || name == "var";
}

// The lower-case name of a single tag `<name ...>` or `</name>` and whether it closes; "" for anything
// else (a comment, a self-closing or partial tag, several tags).
std::pair<std::string, bool> single_tag(std::string_view piece) {
  if (piece.size() < 3 || piece.front() != '<' || piece.back() != '>' || piece[piece.size() - 2] == '/')
    return {"", false};
  if (piece.substr(1, piece.size() - 2).find_first_of("<>\n") != std::string_view::npos) return {"", false};
  const bool closes = piece[1] == '/';
  size_t i = closes ? 2 : 1;
  std::string name;
  while (i < piece.size() && (std::isalnum(static_cast<unsigned char>(piece[i])) || piece[i] == '-'))
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(piece[i++])));
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return {"", false};
  return {name, closes};
}

}  // namespace

void MarkdownInlineHtml::add(Segment& run, std::string_view text, size_t begin, size_t end) {
  const std::string_view piece = text.substr(begin, end - begin);
  const bool space_after = end >= text.size() || std::isspace(static_cast<unsigned char>(text[end]));
  if (continues_ && !run.insertions.empty()) {
    run.insertions.back().bytes += piece;
  } else {
    const auto [name, closes] = single_tag(piece);
    if (!name.empty() && !closes && !is_void(name)) {
      open_.emplace_back(name, run.open_element(std::string(piece)));
      open_begin_.push_back(begin);
      return;
    }
    if (!name.empty() && closes && !open_.empty() && open_.back().first == name) {
      const size_t index = open_.back().second;
      const size_t open_begin = open_begin_.back();
      open_.pop_back();
      open_begin_.pop_back();
      if (is_never_translated(name) && index + 1 == run.elements.size()) {
        const size_t start = run.elements[index].begin;
        run.close_as_verbatim(index, std::string(text.substr(open_begin, end - open_begin)),
                              (start == 0 || run.text[start - 1] == ' ') && space_after);
        return;
      }
      const bool spaced = (run.text.empty() || run.text.back() == ' ') && space_after;
      if (!run.close_as_insertion(index, std::string(piece), spaced))
        run.close_element(index, std::string(piece));
      return;
    }
    space_before_ = run.text.empty() || run.text.back() == ' ';
    run.insert(std::string(piece));
  }
  continues_ = piece.empty() || piece.back() != '>';
  if (!continues_) run.insertions.back().spaced = space_before_ && space_after;
}

void MarkdownInlineHtml::forget_from(size_t element) {
  while (!open_.empty() && open_.back().second >= element) {
    open_.pop_back();
    open_begin_.pop_back();
  }
}

void MarkdownInlineHtml::finish(Segment& run) {
  while (!open_.empty()) {
    run.close_element(open_.back().second, "");
    open_.pop_back();
    open_begin_.pop_back();
  }
  continues_ = false;
}

bool MarkdownInlineHtml::owns(size_t element) const {
  return std::any_of(open_.begin(), open_.end(), [&](const auto& o) { return o.second == element; });
}

}  // namespace documents
