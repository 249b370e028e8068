#include "documents/html_chunks.h"

#include <gumbo.h>

#include <algorithm>
#include <initializer_list>

#include "documents/html_tags.h"
#include "documents/nesting.h"

namespace documents {

namespace {

bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Elements whose content parses the same whatever them: a cut may fall inside them. Not tables: the parser
// moves text and stray elements in a table back before it, across any cut inside.
bool is_container(std::string_view name) {
  return one_of(name, {"html", "body", "div", "section", "article", "main", "header", "footer", "nav",
                       "aside", "ul", "ol", "blockquote", "center"});
}
bool is_void_name(std::string_view name) {
  return one_of(name, {"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta",
                       "param", "source", "track", "wbr"});
}
bool is_raw_text(std::string_view name) {
  return one_of(name, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"});
}
// Start tags that close an open <p> (the HTML standard's "close a p element").
bool closes_p(std::string_view name) {
  return one_of(
      name,
      {"address", "article",  "aside",      "blockquote", "center",  "details", "dialog", "dir",  "div",
       "dl",      "fieldset", "figcaption", "figure",     "footer",  "form",    "h1",     "h2",   "h3",
       "h4",      "h5",       "h6",         "header",     "hgroup",  "hr",      "main",   "menu", "nav",
       "ol",      "p",        "pre",        "section",    "summary", "ul",      "li",     "dd",   "dt"});
}
// The parent a table part needs to parse where it stands ("" for elements outside tables).
bool table_part_fits(std::string_view name, std::string_view parent) {
  if (name == "tr") return one_of(parent, {"table", "tbody", "thead", "tfoot"});
  if (name == "td" || name == "th") return parent == "tr";
  if (one_of(name, {"tbody", "thead", "tfoot", "caption", "colgroup"})) return parent == "table";
  if (name == "col") return parent == "colgroup" || parent == "table";
  return true;
}
bool is_table_part(std::string_view name) {
  return one_of(name, {"tr", "td", "th", "tbody", "thead", "tfoot", "caption", "colgroup", "col"});
}

bool starts_with_nocase(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (ascii_lower(text[at + i]) != prefix[i]) return false;
  }
  return true;
}

// translate="no" or class notranslate in any spelling or place the parser might read (a superset keeps
// cuts out of never-translated elements).
bool marks_never_translated(std::string_view name, std::string_view value) {
  std::string lowered;
  for (char c : value) lowered += ascii_lower(c);
  if (name == "translate") return lowered == "no" || lowered.find('&') != std::string::npos;
  return name == "class" && lowered.find("notranslate") != std::string::npos;
}

}  // namespace

HtmlChunker::HtmlChunker(std::string_view html, size_t target_size) : html_(html), target_size_(target_size) {
  // A <frameset> throws away the body read before it: such a page is one chunk.
  for (size_t lt = html_.find('<'); lt != std::string_view::npos; lt = html_.find('<', lt + 1)) {
    if (starts_with_nocase(html_, lt + 1, "frameset")) simple_ = false;
  }
}

bool HtmlChunker::next(HtmlChunk* chunk) {
  if (done_) return false;
  chunk->begin = chunk_begin_;
  chunk->context = begin_context_;
  chunk->first_line = line_;
  size_t end = html_.size();
  while (simple_ && pos_ < html_.size()) {
    if (scan_token() && simple_ && pos_ - chunk_begin_ >= target_size_) {
      end = pos_;
      break;
    }
  }
  chunk->end = end;
  if (end == html_.size()) {
    done_ = true;
    return true;
  }
  begin_context_ = context();
  for (size_t i = chunk_begin_; i < end; ++i) {
    // The parser counts CR LF, LF and a lone CR as one line break each.
    if (html_[i] == '\n' || (html_[i] == '\r' && (i + 1 == html_.size() || html_[i + 1] != '\n'))) ++line_;
  }
  chunk_begin_ = end;
  return true;
}

void HtmlChunker::skip_to(size_t end) {
  if (end == std::string_view::npos || end > html_.size()) {
    simple_ = false;  // unterminated: the parser reads to the end, so does the last chunk
    pos_ = html_.size();
  } else {
    pos_ = end;
  }
}

bool HtmlChunker::scan_token() {
  const size_t lt = html_.find('<', pos_);
  const size_t text_end = lt == std::string_view::npos ? html_.size() : lt;
  if (in_table()) {
    // Text inside a table is moved before it by the parser.
    for (size_t i = pos_; i < text_end; ++i) {
      if (!is_html_space(html_[i])) simple_ = false;
    }
  }
  for (size_t i = pos_; i < text_end && doctype_allowed_; ++i) {
    if (!is_html_space(html_[i]))
      doctype_allowed_ = false;  // text first (a BOM too): gumbo ignores a doctype
  }
  if (lt == std::string_view::npos) {
    pos_ = html_.size();
    return false;
  }
  pos_ = lt;
  if (html_.compare(pos_, 4, "<!--") == 0) {
    if (html_.compare(pos_, 5, "<!-->") == 0) return skip_to(pos_ + 5), false;
    if (html_.compare(pos_, 6, "<!--->") == 0) return skip_to(pos_ + 6), false;
    const size_t close = html_.find("-->", pos_ + 4);
    const size_t bang = html_.find("--!>", pos_ + 4);
    if (bang != std::string_view::npos && bang < close) simple_ = false;
    skip_to(close == std::string_view::npos ? close : close + 3);
    return false;
  }
  if (html_.compare(pos_, 2, "<!") == 0) {
    if (in_foreign() && html_.compare(pos_, 9, "<![CDATA[") == 0) {
      const size_t close = html_.find("]]>", pos_ + 9);
      skip_to(close == std::string_view::npos ? close : close + 3);
      return false;
    }
    const size_t close = html_.find('>', pos_);
    if (starts_with_nocase(html_, pos_, "<!doctype") && doctype_allowed_ && close != std::string_view::npos) {
      doctype_allowed_ = false;
      doctype_ = std::string(html_.substr(pos_, close + 1 - pos_));
      std::replace(doctype_.begin(), doctype_.end(), '\n', ' ');
      std::replace(doctype_.begin(), doctype_.end(), '\r', ' ');
    }
    skip_to(close == std::string_view::npos ? close : close + 1);
    return false;
  }
  if (html_.compare(pos_, 2, "<?") == 0 ||
      (html_.compare(pos_, 2, "</") == 0 && pos_ + 2 < html_.size() && !is_alpha(html_[pos_ + 2]))) {
    const size_t close = html_.find('>', pos_ + 2);
    skip_to(close == std::string_view::npos ? close : close + 1);
    return false;
  }
  doctype_allowed_ = false;
  if (pos_ + 2 < html_.size() && html_[pos_ + 1] == '/' && is_alpha(html_[pos_ + 2]))
    return end_tag(pos_ + 2);
  if (pos_ + 1 < html_.size() && is_alpha(html_[pos_ + 1])) return start_tag(pos_ + 1);
  if (in_table()) simple_ = false;  // a bare '<' is text
  pos_ += 1;
  return false;
}

HtmlChunker::Tag HtmlChunker::read_tag(size_t name_begin) const {
  Tag tag;
  size_t i = name_begin;
  while (i < html_.size() && !is_html_space(html_[i]) && html_[i] != '/' && html_[i] != '>')
    tag.name += ascii_lower(html_[i++]);
  while (i < html_.size()) {
    const char c = html_[i];
    if (c == '>') {
      tag.end = i + 1;
      return tag;
    }
    if (c == '/' && i + 1 < html_.size() && html_[i + 1] == '>') {
      tag.self_closing = true;
      tag.end = i + 2;
      return tag;
    }
    if (is_html_space(c) || c == '/') {
      ++i;
      continue;
    }
    std::string name(1, ascii_lower(c));  // an attribute name may start with '='
    for (++i; i < html_.size() && !is_html_space(html_[i]) && html_[i] != '/' && html_[i] != '>' &&
              html_[i] != '=';)
      name += ascii_lower(html_[i++]);
    while (i < html_.size() && is_html_space(html_[i])) ++i;
    if (i >= html_.size() || html_[i] != '=') continue;
    ++i;
    while (i < html_.size() && is_html_space(html_[i])) ++i;
    size_t value_begin = i, value_end = i;
    if (i < html_.size() && (html_[i] == '"' || html_[i] == '\'')) {
      const size_t close = html_.find(html_[i], i + 1);
      if (close == std::string_view::npos) break;
      value_begin = i + 1;
      value_end = close;
      i = close + 1;
    } else {
      while (i < html_.size() && !is_html_space(html_[i]) && html_[i] != '>') ++i;
      value_end = i;
    }
    if (marks_never_translated(name, html_.substr(value_begin, value_end - value_begin))) tag.never = true;
  }
  tag.end = std::string_view::npos;  // a tag the page never closes: the parser drops it
  return tag;
}

bool HtmlChunker::start_tag(size_t name_begin) {
  Tag tag = read_tag(name_begin);
  skip_to(tag.end);
  if (!simple_) return false;
  const bool foreign = in_foreign();
  const std::string_view parent = open_.empty() ? std::string_view() : std::string_view(open_.back().name);
  if (tag.name == "plaintext" || tag.name == "frameset" || tag.name == "frame") {
    simple_ = false;
    return false;
  }
  if (!foreign) {
    if (in_table() && !is_table_part(tag.name) && !one_of(tag.name, {"script", "style", "template"})) {
      simple_ = false;  // the parser moves it before the table
      return false;
    }
    if (is_table_part(tag.name) && !table_part_fits(tag.name, parent)) {
      simple_ = false;  // the parser supplies or drops table parts out of place
      return false;
    }
    if (parent == "p" && tag.name == "table") {
      simple_ = false;  // whether it closes the <p> depends on the doctype's quirks mode
      return false;
    }
    // Closed by this start tag, as the parser closes them.
    if (parent == "p" && closes_p(tag.name)) open_.pop_back();
    if (!open_.empty() && open_.back().name == tag.name && one_of(tag.name, {"li", "dd", "dt"}))
      open_.pop_back();
    if (is_raw_text(tag.name)) {
      // Raw text runs to its end tag; a script's "<!--" may hide that end tag from a simple search.
      size_t close = pos_;
      for (;;) {
        close = html_.find("</", close);
        if (close == std::string_view::npos) break;
        const size_t after = close + 2 + tag.name.size();
        if (starts_with_nocase(html_, close + 2, tag.name) &&
            (after == html_.size() || is_html_space(html_[after]) || html_[after] == '>' ||
             html_[after] == '/'))
          break;
        close += 2;
      }
      if (close == std::string_view::npos ||
          (tag.name == "script" && html_.substr(pos_, close - pos_).find("<!--") != std::string_view::npos)) {
        simple_ = false;
        return false;
      }
      skip_to(read_tag(close + 2).end);
      return false;
    }
    if (is_void_name(tag.name)) return false;
  }
  if ((foreign || tag.name == "svg" || tag.name == "math") && tag.self_closing) return false;
  const bool never =
      tag.never || foreign || never_translated_tag(gumbo_tagn_enum(tag.name.data(), tag.name.size()));
  open_.push_back({tag.name, is_container(tag.name) && !never, never});
  // Past the readers' bound the page is refused (documents/nesting.h): the tokenizer stops following, so
  // its walks over the open elements stay short, and the parser's tree is measured and refused.
  if (open_.size() > kMaxNestingDepth) simple_ = false;
  return false;
}

bool HtmlChunker::end_tag(size_t name_begin) {
  const Tag tag = read_tag(name_begin);
  skip_to(tag.end);
  if (!simple_) return false;
  if (!is_inline_tag(gumbo_tagn_enum(tag.name.data(), tag.name.size()))) {
    // A block's end tag implies the end tags of an open <p>, <li>, <dd> or <dt> inside it.
    while (!open_.empty() && open_.back().name != tag.name &&
           one_of(open_.back().name, {"p", "li", "dd", "dt"}))
      open_.pop_back();
  }
  if (open_.empty() || open_.back().name != tag.name || tag.name == "body" || tag.name == "html") {
    simple_ = false;  // misnested or implied end tags: the tokenizer stops following the tree
    return false;
  }
  const Open closed = open_.back();
  open_.pop_back();
  if (closed.never || tag.name == "head" || in_foreign() ||
      is_inline_tag(gumbo_tagn_enum(tag.name.data(), tag.name.size())))
    return false;
  return std::all_of(open_.begin(), open_.end(), [](const Open& open) { return open.container; });
}

bool HtmlChunker::in_foreign() const {
  return std::any_of(open_.begin(), open_.end(),
                     [](const Open& open) { return open.name == "svg" || open.name == "math"; });
}

bool HtmlChunker::in_table() const {
  return !open_.empty() && one_of(open_.back().name, {"table", "tbody", "thead", "tfoot", "tr"});
}

std::string HtmlChunker::context() const {
  std::string context = doctype_ + "<html><body>";
  for (const Open& open : open_) {
    if (open.name != "html" && open.name != "body") context += "<" + open.name + ">";
  }
  return context;
}

}  // namespace documents
