#include "documents/markdown_writer.h"

#include <algorithm>
#include <cctype>

#include "documents/html_reader.h"

namespace documents {

namespace {

// A letter or digit of any script: non-ASCII bytes count as word characters.
bool is_word_char(char c) {
  return static_cast<unsigned char>(c) >= 0x80 || std::isalnum(static_cast<unsigned char>(c));
}

// "1." or "12)" and the like: an ordered list marker's digits and its punctuation's offset.
size_t ordered_marker_end(std::string_view word) {
  size_t i = 0;
  while (i < word.size() && i < 9 && std::isdigit(static_cast<unsigned char>(word[i]))) ++i;
  return i > 0 && i < word.size() && (word[i] == '.' || word[i] == ')') ? i : 0;
}

// A line starting with `word` would begin a block (heading, quote, list item, rule, setext underline, fence,
// table row or HTML block) instead of continuing the paragraph.
bool starts_block(std::string_view word) {
  if (word.empty()) return false;
  if (std::string_view("#>=|<+-").find(word[0]) != std::string_view::npos) return true;
  if (word.rfind("```", 0) == 0 || word.rfind("~~~", 0) == 0) return true;
  if (word.find_first_not_of("*_") == std::string_view::npos) return true;  // "*", "***", "___"
  return ordered_marker_end(word) > 0;
}

}  // namespace

std::string escape_markdown_text(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char before = i > 0 ? text[i - 1] : ' ', after = i + 1 < text.size() ? text[i + 1] : ' ';
    bool escape = std::string_view("\\*`[]~|").find(c) != std::string_view::npos;
    if (c == '_') escape = !is_word_char(before) || !is_word_char(after);
    if (c == '<')
      escape =
          std::isalpha(static_cast<unsigned char>(after)) || after == '/' || after == '!' || after == '?';
    if (c == '&') {
      size_t end = i + 1 + (after == '#');
      while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) ++end;
      escape = end < text.size() && text[end] == ';' && end > i + 1 + (after == '#');
    }
    if (escape) out += '\\';
    out += c;
  }
  return out;
}

std::string wrap_markdown(const std::string& projected, const std::vector<MarkupRange>& markup,
                          const MarkdownLayout& layout) {
  // Bytes where no break may fall: source markup, and links and images whole.
  std::vector<bool> kept(projected.size(), false);
  for (const MarkupRange& range : markup) {
    if (range.element && !(range.open.rfind("[", 0) == 0 || range.open.rfind("![", 0) == 0)) continue;
    std::fill(kept.begin() + range.begin, kept.begin() + std::min(range.end, projected.size()), true);
  }
  std::string text = projected;
  if (!text.empty() && !kept[0] && starts_block(text)) {
    const size_t marker = ordered_marker_end(text);
    text.insert(marker, "\\");
    kept.insert(kept.begin() + marker, false);
  }
  // Words: runs of bytes between spaces outside kept bytes.
  struct Word {
    size_t begin, end;
  };
  std::vector<Word> words;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == ' ' && !kept[i]) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !(text[end] == ' ' && !kept[end])) ++end;
    words.push_back({i, end});
    i = end;
  }
  const size_t prefix_width = code_points(layout.continuation);
  std::string out;
  size_t column = layout.first_column;
  bool line_start = true;  // nothing but a prefix on the line so far
  for (size_t w = 0; w < words.size(); ++w) {
    const std::string_view word(text.data() + words[w].begin, words[w].end - words[w].begin);
    const size_t newline = word.find('\n');  // a hard break kept inside the word's markup
    const size_t width = code_points(word.substr(0, newline));
    if (!line_start) {
      if (layout.width > 0 && column + 1 + width > layout.width && !starts_block(word)) {
        out += layout.line_end + layout.continuation;
        column = prefix_width;
      } else {
        out += ' ';
        ++column;
      }
    }
    out += word;
    column += width;
    line_start = false;
    if (newline != std::string_view::npos) {
      const std::string_view rest = word.substr(word.rfind('\n') + 1);
      column = code_points(rest);
      line_start = rest.find_first_not_of(" \t>") == std::string_view::npos;
    }
  }
  return out;
}

std::string translate_markdown(std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, const SegmentTranslator& translate) {
  std::vector<MarkdownLayout> layouts;
  Document document = read_markdown(bytes, name, warnings, &layouts);
  const std::vector<SegmentTranslation> translations = translate(document.segments);
  return document.assemble([&](int index) {
    const Segment& segment = document.segments[index];
    const SegmentTranslation& t = translations[index];
    const MarkdownLayout& layout = layouts[index];
    size_t moved = 0;
    std::vector<MarkupRange> markup;
    std::string projected =
        layout.html ? project_markup(segment, t.text, t.links, escape_html_text, nullptr, &moved)
                    : project_markup(segment, t.text, t.links, escape_markdown_text, &markup, &moved);
    if (moved > 0 && warnings) warnings->push_back(moved_elements_warning(name, segment, moved));
    return layout.html ? projected : wrap_markdown(projected, markup, layout);
  });
}

}  // namespace documents
