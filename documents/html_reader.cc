#include "documents/html_reader.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>

#include "documents/gumbo_tree.h"
#include "documents/html_tags.h"
#include "documents/letters.h"
#include "documents/nesting.h"

namespace documents {

namespace {

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// A segment and the source bytes [begin, end) its translation replaces.

class HtmlReader {
 public:
  HtmlReader(std::string_view html, const std::string& name, std::vector<std::string>* warnings,
             int first_line)
      : html_(html), name_(name), warnings_(warnings), line_offset_(first_line - 1) {}

  std::vector<SourceSpan> spans;

  void read_block(const GumboNode& node) {
    const GumboVector& children =
        node.type == GUMBO_NODE_DOCUMENT ? node.v.document.children : node.v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const GumboNode& child = *static_cast<const GumboNode*>(children.data[i]);
      if (child.type == GUMBO_NODE_ELEMENT || child.type == GUMBO_NODE_TEMPLATE) {
        const GumboElement& element = child.v.element;
        if (never_translated(element) && !started()) continue;
        if (!never_translated(element) && (!is_inline(element) || has_block(child))) {
          finish_run();
          read_block(child);
          continue;
        }
      } else if (!started() && (child.type != GUMBO_NODE_TEXT && child.type != GUMBO_NODE_CDATA)) {
        continue;  // whitespace and comments before a run stay in the skeleton
      }
      add_inline(child);
    }
    finish_run();
  }

  void read_attributes(const GumboNode& node) {
    if (node.type != GUMBO_NODE_ELEMENT && node.type != GUMBO_NODE_DOCUMENT) return;
    const GumboVector& children =
        node.type == GUMBO_NODE_DOCUMENT ? node.v.document.children : node.v.element.children;
    if (node.type == GUMBO_NODE_ELEMENT) {
      const GumboElement& element = node.v.element;
      if (never_translated(element)) return;
      for (unsigned i = 0; i < element.attributes.length; ++i) {
        const GumboAttribute& a = *static_cast<const GumboAttribute*>(element.attributes.data[i]);
        const bool described = std::string_view(a.name) == "content" && describes_page(element);
        if (!(is_translated_attribute(a.name) || described) || a.original_value.length < 2) continue;
        outside_ = false;
        const size_t value_end = offset_of(a.original_value.data) + a.original_value.length;
        if (outside_ || value_end > html_.size()) continue;
        const char quote = a.original_value.data[0];
        if (quote != '"' && quote != '\'') continue;
        const std::string value = collapse(a.value);
        if (value.find_first_not_of(' ') == std::string::npos) continue;
        SourceSpan span;
        span.begin = offset_of(a.original_value.data) + 1;
        span.end = offset_of(a.original_value.data) + a.original_value.length - 1;
        span.segment.text = value;
        span.segment.quote = quote;
        span.segment.line = static_cast<int>(a.value_start.line) + line_offset_;
        spans.push_back(std::move(span));
      }
    }
    for (unsigned i = 0; i < children.length; ++i)
      read_attributes(*static_cast<const GumboNode*>(children.data[i]));
  }

 private:
  // `<meta name="description">` (and Open Graph's and Twitter's description and title): its `content` is
  // what search results and link previews show of the page, translated as `alt` is.
  static bool describes_page(const GumboElement& element) {
    if (element.tag != GUMBO_TAG_META) return false;
    for (const char* key : {"name", "property"}) {
      const GumboAttribute* a = gumbo_get_attribute(&element.attributes, key);
      if (a == nullptr) continue;
      const std::string_view value = a->value;
      if (value == "description" || value == "og:description" || value == "twitter:description" ||
          value == "og:title" || value == "twitter:title")
        return true;
    }
    return false;
  }

  // A pointer gumbo gives outside the source (text it made up) spoils the run it is in.
  size_t offset_of(const char* p) const {
    if (p < html_.data() || p > html_.data() + html_.size()) {
      outside_ = true;
      return run_cursor_;
    }
    return static_cast<size_t>(p - html_.data());
  }
  bool started() const { return run_started_; }

  // ASCII whitespace runs as one space, as HTML renders them.
  static std::string collapse(std::string_view text) {
    std::string out;
    for (char c : text) {
      if (is_ascii_space(c)) {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += c;
      }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

  static bool has_block(const GumboNode& node) {
    if (node.type != GUMBO_NODE_ELEMENT) return false;
    const GumboVector& children = node.v.element.children;
    for (unsigned i = 0; i < children.length; ++i) {
      const GumboNode& child = *static_cast<const GumboNode*>(children.data[i]);
      if (child.type != GUMBO_NODE_ELEMENT || never_translated(child.v.element)) continue;
      if (!is_inline(child.v.element) || has_block(child)) return true;
    }
    return false;
  }

  // Where the node's source bytes end (an element without an end tag: where its last descendant ends).
  size_t end_of(const GumboNode& node) const {
    if (node.type != GUMBO_NODE_ELEMENT && node.type != GUMBO_NODE_TEMPLATE) {
      return offset_of(node.v.text.original_text.data) + node.v.text.original_text.length;
    }
    const GumboElement& e = node.v.element;
    if (e.original_end_tag.length > 0) return offset_of(e.original_end_tag.data) + e.original_end_tag.length;
    size_t end = offset_of(e.original_tag.data) + e.original_tag.length;
    for (unsigned i = 0; i < e.children.length; ++i) {
      end = std::max(end, end_of(*static_cast<const GumboNode*>(e.children.data[i])));
    }
    return end;
  }

  // The node's source bytes begin at `begin`: anything skipped before it goes in as an insertion; a node
  // the parser moved back or made up spoils the run.
  void reach(size_t begin, const GumboNode& node) {
    if (!run_started_) {
      run_started_ = true;
      run_begin_ = run_cursor_ = begin;
      run_line_ =
          line_offset_ + static_cast<int>(node.type == GUMBO_NODE_ELEMENT ? node.v.element.start_pos.line
                                                                          : node.v.text.start_pos.line);
    }
    if (begin < run_cursor_ || (node.parse_flags & ~GUMBO_INSERTION_IMPLICIT_END_TAG) != 0)
      run_repaired_ = true;
    if (begin > run_cursor_) run_.insert(std::string(html_.substr(run_cursor_, begin - run_cursor_)));
  }

  void append_text(std::string_view text) {
    for (char c : text) {
      if (is_ascii_space(c)) {
        if (!run_.text.empty() && run_.text.back() != ' ') run_.text += ' ';
      } else {
        run_.text += c;
      }
    }
  }

  void add_inline(const GumboNode& node) {
    if (node.type == GUMBO_NODE_TEXT || node.type == GUMBO_NODE_WHITESPACE || node.type == GUMBO_NODE_CDATA) {
      const GumboStringPiece& original = node.v.text.original_text;
      reach(offset_of(original.data), node);
      append_text(node.v.text.text);
      run_cursor_ = text_end(offset_of(original.data), original.length);
      return;
    }
    if (node.type == GUMBO_NODE_COMMENT) {
      const GumboStringPiece& original = node.v.text.original_text;
      reach(offset_of(original.data), node);
      run_.insert(std::string(original.data, original.length));
      run_cursor_ = std::min(offset_of(original.data) + original.length, html_.size());
      return;
    }
    if (node.type != GUMBO_NODE_ELEMENT) return;
    const GumboElement& e = node.v.element;
    if (e.original_tag.length == 0) {  // a tag the parser supplied: not in the source
      run_repaired_ = true;
      return;
    }
    const size_t begin = offset_of(e.original_tag.data);
    reach(begin, node);
    if (never_translated(e) || is_void(e)) {
      const size_t end = std::min(end_of(node), html_.size());
      if (end > run_cursor_ && end >= begin) {
        // Inline code or an image between spaces is a word of its own.
        const bool spaced = (run_.text.empty() || run_.text.back() == ' ') &&
                            (end == html_.size() || is_ascii_space(html_[end]));
        run_.insert(std::string(html_.substr(begin, end - begin)), spaced);
        run_cursor_ = end;
      }
      if (is_void(e) && !run_.text.empty() && run_.text.back() != ' ') run_.text += ' ';
      return;
    }
    const size_t index = run_.open_element(std::string(e.original_tag.data, e.original_tag.length));
    run_cursor_ = std::min(begin + e.original_tag.length, html_.size());
    for (unsigned i = 0; i < e.children.length; ++i)
      add_inline(*static_cast<const GumboNode*>(e.children.data[i]));
    std::string close;
    if (e.original_end_tag.length > 0) {
      const size_t end_begin = offset_of(e.original_end_tag.data);
      if (end_begin < run_cursor_) run_repaired_ = true;
      if (end_begin > run_cursor_)
        run_.insert(std::string(html_.substr(run_cursor_, end_begin - run_cursor_)));
      close.assign(e.original_end_tag.data, e.original_end_tag.length);
      run_cursor_ = std::min(end_begin + e.original_end_tag.length, html_.size());
    }
    const bool after_space = run_cursor_ == html_.size() || is_ascii_space(html_[run_cursor_]);
    if (holds_only_a_mark(e, run_.elements[index].begin)) {
      const size_t start = run_.elements[index].begin;
      run_.close_as_verbatim(index, std::string(html_.substr(begin, run_cursor_ - begin)),
                             start == 0 || run_.text[start - 1] == ' ');
      return;
    }
    const bool spaced = (run_.text.empty() || run_.text.back() == ' ') && after_space;
    if (!run_.close_as_insertion(index, close, spaced)) run_.close_element(index, close);
  }

  // Where a text node's source ends: gumbo adds the whitespace after `</body>` and `</html>` to the body's
  // last text node, whose original text then spans those tags; they stay in the skeleton.
  size_t text_end(size_t begin, size_t length) const {
    const size_t end = std::min(begin + length, html_.size());
    for (size_t i = begin; i + 1 < end; ++i) {
      const char next = html_[i + 1];
      if (html_[i] == '<' && (next == '/' || next == '!' || std::isalpha(static_cast<unsigned char>(next))))
        return i;
    }
    return end;
  }

  // A link or superscript around text without letters (a footnote mark `<sup><a>1</a></sup>`, `[2]`, a
  // back-link arrow) is kept whole where it stands: the model would read it as a word of the sentence.
  bool holds_only_a_mark(const GumboElement& e, size_t text_begin) const {
    if (e.tag != GUMBO_TAG_A && e.tag != GUMBO_TAG_SUP) return false;
    const std::string_view inside = std::string_view(run_.text).substr(text_begin);
    return inside.find_first_not_of(' ') != std::string_view::npos && !has_letter(inside);
  }

  void finish_run() {
    if (!run_started_) return;
    Segment segment = std::move(run_);
    run_ = Segment();
    run_started_ = false;
    const bool repaired = run_repaired_ || outside_ || run_cursor_ > html_.size();
    run_repaired_ = outside_ = false;
    while (!segment.text.empty() && segment.text.back() == ' ') segment.text.pop_back();
    if (segment.text.empty()) return;  // nothing to translate: the bytes stay as they are
    if (repaired) {
      if (warnings_) {
        warnings_->push_back(name_ + ":" + std::to_string(run_line_) +
                             ": markup the parser had to repair; this text is kept untranslated");
      }
      return;
    }
    for (InlineElement& e : segment.elements) {
      e.begin = std::min(e.begin, segment.text.size());
      e.end = std::min(e.end, segment.text.size());
    }
    for (Insertion& i : segment.insertions) i.at = std::min(i.at, segment.text.size());
    // Whitespace at the run's edges stays in the skeleton (tags never start or end with it).
    size_t begin = run_begin_, end = run_cursor_;
    while (begin < end && is_ascii_space(html_[begin])) ++begin;
    while (end > begin && is_ascii_space(html_[end - 1])) --end;
    segment.line = run_line_;
    spans.push_back({begin, end, std::move(segment)});
  }

  std::string_view html_;
  const std::string& name_;
  std::vector<std::string>* warnings_;
  int line_offset_;
  Segment run_;
  bool run_started_ = false, run_repaired_ = false;
  mutable bool outside_ = false;
  size_t run_begin_ = 0, run_cursor_ = 0;
  int run_line_ = 0;
};

// `quote`: the quote character around an attribute value, 0 for text.
std::string escape(std::string_view text, char quote, bool xhtml) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      // `<%` is text to HTML, and a server template's tag as written (`<%= x %>`, a protected span).
      out += quote == 0 && !xhtml && i + 1 < text.size() && text[i + 1] == '%' ? "<" : "&lt;";
    } else if (c == '>') {
      out += quote == 0 && !xhtml && i > 0 && text[i - 1] == '%' ? ">" : "&gt;";
    } else if (c == quote) {
      out += c == '"' ? "&quot;" : "&#39;";
    } else if (c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0') {
      out += xhtml ? "&#160;" : "&nbsp;";  // XML knows no &nbsp;
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_html_text(std::string_view text) { return escape(text, 0, false); }
std::string escape_html_attribute(std::string_view text, char quote) { return escape(text, quote, false); }
std::string escape_xhtml_text(std::string_view text) { return escape(text, 0, true); }
std::string escape_xhtml_attribute(std::string_view text, char quote) { return escape(text, quote, true); }

Document read_html(std::string_view html, HtmlPass pass, const std::string& name,
                   std::vector<std::string>* warnings, int first_line) {
  const GumboTree parsed(html);
  // The reader recurses once per level: a deeper page is refused before it is walked.
  if (const GumboNode* deep = parsed.first_too_deep()) {
    throw TooDeep(
        too_deep_message(name + ":" + std::to_string(deep->v.element.start_pos.line + first_line - 1)));
  }
  HtmlReader reader(html, name, warnings, first_line);
  if (pass == HtmlPass::kText) {
    reader.read_block(parsed.document());
  } else {
    reader.read_attributes(parsed.document());
  }
  return splice_spans(html, std::move(reader.spans));
}

}  // namespace documents
