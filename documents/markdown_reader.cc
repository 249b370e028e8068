#include "documents/markdown_reader.h"

#include <md4c.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "documents/markdown_html_blocks.h"
#include "documents/markdown_inline_html.h"
#include "documents/markdown_syntax.h"
#include "documents/markdown_tables.h"

namespace documents {

namespace {

struct Span {
  size_t begin = 0, end = 0;
  Segment segment;
  MarkdownLayout layout;
  bool html_block = false;  // [begin, end) is an HTML block for the HTML reader; `segment` is unused
};

class MarkdownReader {
 public:
  // md4c parses `tables`' text, which starts at `parse_begin` of `text`.
  MarkdownReader(std::string_view text, const WidenedTables& tables, size_t parse_begin)
      : text_(text), tables_(tables), parse_begin_(parse_begin) {}

  std::vector<Span> spans;

  int enter_block(MD_BLOCKTYPE type) {
    finish();
    if (type == MD_BLOCK_CODE || type == MD_BLOCK_HTML) ++verbatim_depth_;
    if (type == MD_BLOCK_HTML) {
      html_begin_ = std::string::npos;
      html_contiguous_ = true;
    }
    return 0;
  }
  int leave_block(MD_BLOCKTYPE type) {
    finish();
    if (type == MD_BLOCK_CODE || type == MD_BLOCK_HTML) --verbatim_depth_;
    // An HTML block whose lines carry no container prefix goes to the HTML reader whole.
    if (type == MD_BLOCK_HTML && html_begin_ != std::string::npos && html_contiguous_) {
      spans.push_back({html_begin_, html_end_, Segment(), MarkdownLayout(), true});
    }
    return 0;
  }

  int enter_span(MD_SPANTYPE type) {
    if (verbatim_depth_ > 0 || skip_depth_ > 0) {
      skip_depth_ += skip_depth_ > 0;
      return 0;
    }
    if (type == MD_SPAN_CODE) {
      code_begin_ = std::string::npos;
      in_code_ = true;
      return 0;
    }
    pending_opens_.push_back(run_.open_element(""));
    open_at_.resize(run_.elements.size(), std::string::npos);
    open_types_.push_back(type);
    return 0;
  }

  int leave_span(MD_SPANTYPE type) {
    if (skip_depth_ > 0) {
      if (--skip_depth_ == 0) {  // an autolink: kept whole as an insertion
        size_t end = cursor_;
        if (end < text_.size() && text_[end] == '>') ++end;
        run_.insert(std::string(text_.substr(skip_begin_, end - skip_begin_)), true);
        cursor_ = end;
        close_top(type, false);
      }
      return 0;
    }
    if (verbatim_depth_ > 0) return 0;
    if (type == MD_SPAN_CODE) {
      size_t end = cursor_;
      while (end < text_.size() && text_[end] == ' ') ++end;
      while (end < text_.size() && text_[end] == '`') ++end;
      if (code_begin_ != std::string::npos) {
        run_.insert(std::string(text_.substr(code_begin_, end - code_begin_)), true);
        cursor_ = end;
      }
      in_code_ = false;
      return 0;
    }
    close_top(type, true);
    return 0;
  }

  int text(MD_TEXTTYPE type, const char* data, size_t size) {
    if (verbatim_depth_ > 0 || skip_depth_ > 0) {
      if (inside(data)) {
        cursor_ = std::max(cursor_, offset(data + size));
        if (type == MD_TEXT_HTML) note_html_line(offset(data), size);
      }
      return 0;
    }
    if (alert_until_ > 0 && (type == MD_TEXT_SOFTBR || (inside(data) && offset(data) < alert_until_)))
      return 0;  // the rest of a kept GitHub alert marker line, and its line break
    alert_until_ = 0;
    if (type == MD_TEXT_SOFTBR) {  // lines of one paragraph join into one; the writer wraps them again
      soft_break_ = true;
      wrapped_ = true;
      append(" ");
      return 0;
    }
    if (type == MD_TEXT_BR) {  // a hard break: the bytes up to the next line's content, kept
      size_t end = text_.find('\n', cursor_);
      end = end == std::string::npos ? text_.size() : end + 1;
      while (end < text_.size() && (text_[end] == ' ' || text_[end] == '\t' || text_[end] == '>')) ++end;
      run_.insert(std::string(text_.substr(cursor_, end - cursor_)));
      append(" ");  // the lines' words stay apart for the model
      cursor_ = end;
      return 0;
    }
    if (!inside(data)) return 0;  // a replacement character for NUL: nothing of the source
    const size_t at = offset(data);
    if (type == MD_TEXT_HTML && inline_html_.continues()) {  // the rest of a construct over lines
      inline_html_.add(run_, text_, cursor_, offset(data + size));
      cursor_ = offset(data + size);
      return 0;
    }
    if (in_code_) {
      if (code_begin_ == std::string::npos) {
        code_begin_ = at;
        while (code_begin_ > cursor_ && text_[code_begin_ - 1] == ' ') --code_begin_;
        while (code_begin_ > cursor_ && text_[code_begin_ - 1] == '`') --code_begin_;
        reach(code_begin_);
      }
      cursor_ = offset(data + size);
      return 0;
    }
    if (const size_t alert = started_ || type != MD_TEXT_NORMAL ? 0 : alert_marker_length(text_, at)) {
      reach(at);  // a GitHub alert's marker line is kept as written, before the paragraph's words
      run_.insert(std::string(text_.substr(at, alert)));
      cursor_ = alert_until_ = at + alert;
      return 0;
    }
    reach(at);
    if (!pending_autolink_.empty()) {
      pending_autolink_.clear();
      skip_depth_ = 1;
      cursor_ = offset(data + size);
      return 0;
    }
    if (type == MD_TEXT_HTML) {
      inline_html_.add(run_, text_, at, offset(data + size));
    } else if (type == MD_TEXT_LATEXMATH) {
      run_.insert(std::string(data, size));
    } else if (type == MD_TEXT_ENTITY) {
      const std::string_view entity(data, size);
      const std::string_view decoded = decoded_basic_entity(entity);
      if (decoded.empty()) {
        run_.insert(std::string(entity));
      } else {
        append(decoded);
      }
    } else {
      append(std::string_view(data, size));
    }
    cursor_ = offset(data + size);
    return 0;
  }

  void finish() {
    pending_opens_.clear();
    open_types_.clear();
    open_at_.clear();
    closed_.clear();
    inline_html_.finish(run_);
    soft_break_ = false;
    const bool wrapped = wrapped_;
    wrapped_ = false;
    if (!started_) return;
    started_ = false;
    Segment segment = std::move(run_);
    run_ = Segment();
    while (!segment.text.empty() && segment.text.back() == ' ') segment.text.pop_back();
    if (segment.text.empty()) return;
    for (InlineElement& e : segment.elements) e.end = std::min(e.end, segment.text.size());
    for (Insertion& i : segment.insertions) i.at = std::min(i.at, segment.text.size());
    segment.line = line_of(run_begin_);
    spans.push_back({run_begin_, cursor_, std::move(segment),
                     measure_layout(text_, run_begin_, cursor_, wrapped, continuation_, line_end_)});
  }

 private:
  bool inside(const char* p) const {
    const std::string_view parsed = tables_.parse_text();
    return p >= parsed.data() && p < parsed.data() + parsed.size();
  }
  // The source offset of a pointer into what md4c parses.
  size_t offset(const char* p) const {
    return parse_begin_ + tables_.source_offset(static_cast<size_t>(p - tables_.parse_text().data()));
  }
  // An HTML block's lines must follow each other with nothing but line ends and indentation between them
  // (which HTML reads as spaces); a quote's `>` keeps the block verbatim.
  void note_html_line(size_t at, size_t size) {
    if (html_begin_ == std::string::npos) {
      html_begin_ = at;
    } else if (text_.substr(html_end_, at - html_end_).find_first_not_of(" \t\r\n") != std::string::npos) {
      html_contiguous_ = false;
    }
    html_end_ = at + size;
  }

  int line_of(size_t at) const {
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + at, '\n'));
  }

  void append(std::string_view text) {
    for (char c : text) {
      if (c == ' ' || c == '\t' || c == '\n') {
        if (!run_.text.empty() && run_.text.back() != ' ') run_.text += ' ';
      } else {
        run_.text += c;
      }
    }
  }

  // Content resumes at `at`: the bytes since the cursor open the pending elements (after a soft break,
  // the next line's indentation and quote markers are dropped with its line break).
  void reach(size_t at) {
    if (!started_) {
      started_ = true;
      size_t begin = at;  // the opening delimiters of the elements pending before the first text
      while (!pending_opens_.empty() && begin > 0 &&
             std::string_view("*_~[!<").find(text_[begin - 1]) != std::string_view::npos)
        --begin;
      if (pending_opens_.empty() && begin > 0 && text_[begin - 1] == '\\' &&
          std::ispunct(static_cast<unsigned char>(text_[begin])))
        --begin;  // an escape's backslash, dropped below
      cursor_ = run_begin_ = begin;
      wrapped_once_ = false;
    }
    if (soft_break_) {
      soft_break_ = false;
      size_t nl = text_.find('\n', cursor_);
      if (nl != std::string::npos && nl < at) {
        cursor_ = nl + 1;
        while (cursor_ < at && (text_[cursor_] == ' ' || text_[cursor_] == '\t' || text_[cursor_] == '>'))
          ++cursor_;
        if (!wrapped_once_) {  // the first continuation line's prefix stands for all
          continuation_ = std::string(text_.substr(nl + 1, cursor_ - nl - 1));
          line_end_ = nl > 0 && text_[nl - 1] == '\r' ? "\r\n" : "\n";
          wrapped_once_ = true;
        }
      }
    }
    if (at <= cursor_) return;
    const std::string gap(text_.substr(cursor_, at - cursor_));
    if (pending_opens_.empty()) {
      // An escape's backslash is dropped: the writer escapes the character again where it would read as
      // Markdown.
      if (gap != "\\" || !std::ispunct(static_cast<unsigned char>(text_[at]))) run_.insert(gap);
    } else {
      run_.elements[pending_opens_.front()].open = gap;
      open_at_.resize(run_.elements.size(), std::string::npos);
      for (size_t e : pending_opens_) open_at_[e] = cursor_;
      if (open_types_.front() == MD_SPAN_A && gap.back() == '<') {  // <https://...>: kept whole
        pending_autolink_ = gap;
        skip_begin_ = at - 1;
        run_.elements[pending_opens_.front()].open = gap.substr(0, gap.size() - 1);
      }
    }
    pending_opens_.clear();
    open_types_.clear();
    cursor_ = at;
  }

  // The element open last ends here: its closing delimiter is taken from the bytes at the cursor.
  void close_top(MD_SPANTYPE type, bool take_delimiter) {
    for (size_t i = run_.elements.size(); i-- > 0;) {
      if (closed_.count(i) || inline_html_.owns(i)) continue;
      size_t end = cursor_;
      if (take_delimiter) end = closing_delimiter_end(type);
      if (take_delimiter && i < open_at_.size() && open_at_[i] < cursor_ &&
          (run_.elements[i].begin == run_.text.size() || names_its_reference(type) ||
           wraps_only_an_image(i, type))) {
        keep_whole(i, end);
        return;
      }
      run_.close_element(i, std::string(text_.substr(cursor_, end - cursor_)));
      closed_.insert(i);
      cursor_ = end;
      return;
    }
  }

  // An element around no text (`**`code`**`, [`code`](url)) would lose what it holds to the insertions
  // beside it, and a shortcut reference's text ([the spec]) is a label: each is kept as one insertion.
  void keep_whole(size_t element, size_t end) {
    const int order = run_.elements[element].order;
    const size_t begin = open_at_[element];
    run_.text.resize(run_.elements[element].begin);
    run_.elements.resize(element);
    open_at_.resize(element);
    closed_.erase(closed_.lower_bound(element), closed_.end());
    inline_html_.forget_from(element);
    while (!run_.insertions.empty() && run_.insertions.back().order > order) run_.insertions.pop_back();
    run_.insert(std::string(text_.substr(begin, end - begin)), true);
    cursor_ = end;
  }

  // A link around an image and nothing else (a badge): the alt text labels the image, not a sentence.
  bool wraps_only_an_image(size_t link, MD_SPANTYPE type) const {
    if (type != MD_SPAN_A || link + 1 >= run_.elements.size() || !closed_.count(link + 1)) return false;
    const std::string& open = run_.elements[link].open;
    const InlineElement& image = run_.elements[link + 1];
    return open.size() >= 2 && open.compare(open.size() - 2, 2, "![") == 0 &&
           image.begin == run_.elements[link].begin && image.end == run_.text.size();
  }

  bool names_its_reference(MD_SPANTYPE type) const {  // "[the spec]", "![logo][]": the text is a label
    if ((type != MD_SPAN_A && type != MD_SPAN_IMG) || text_.compare(cursor_, 1, "]") != 0) return false;
    const char next = cursor_ + 1 < text_.size() ? text_[cursor_ + 1] : '\n';
    return next == '[' ? text_.compare(cursor_ + 1, 2, "[]") == 0 : next != '(';
  }

  size_t closing_delimiter_end(MD_SPANTYPE type) const {
    return after_closing_delimiter(text_, cursor_, type == MD_SPAN_A || type == MD_SPAN_IMG);
  }

  std::string_view text_;
  const WidenedTables& tables_;
  size_t parse_begin_;
  Segment run_;
  bool started_ = false, soft_break_ = false, in_code_ = false, wrapped_ = false, wrapped_once_ = false;
  bool html_contiguous_ = true;
  size_t html_begin_ = std::string::npos, html_end_ = 0;
  std::string continuation_, line_end_ = "\n";
  size_t run_begin_ = 0, cursor_ = 0, code_begin_ = 0, skip_begin_ = 0;
  int verbatim_depth_ = 0, skip_depth_ = 0;
  std::vector<size_t> pending_opens_;
  std::vector<size_t> open_at_;  // where each element's opening delimiter starts in the source
  std::vector<MD_SPANTYPE> open_types_;
  std::string pending_autolink_;
  std::set<size_t> closed_;
  MarkdownInlineHtml inline_html_;
  size_t alert_until_ = 0;  // the end of a kept alert marker line, whose pieces md4c still hands over
};

}  // namespace

Document read_markdown(std::string_view markdown, const std::string& name, std::vector<std::string>* warnings,
                       std::vector<MarkdownLayout>* layouts) {
  const size_t front = front_matter_length(markdown);
  const WidenedTables tables(markdown.substr(front));
  MarkdownReader reader(markdown, tables, front);
  MD_PARSER parser{};
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS;
  parser.enter_block = [](MD_BLOCKTYPE type, void*, void* r) {
    return static_cast<MarkdownReader*>(r)->enter_block(type);
  };
  parser.leave_block = [](MD_BLOCKTYPE type, void*, void* r) {
    return static_cast<MarkdownReader*>(r)->leave_block(type);
  };
  parser.enter_span = [](MD_SPANTYPE type, void*, void* r) {
    return static_cast<MarkdownReader*>(r)->enter_span(type);
  };
  parser.leave_span = [](MD_SPANTYPE type, void*, void* r) {
    return static_cast<MarkdownReader*>(r)->leave_span(type);
  };
  parser.text = [](MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* r) {
    return static_cast<MarkdownReader*>(r)->text(type, data, size);
  };
  const std::string_view parsed = tables.parse_text();
  md_parse(parsed.data(), static_cast<MD_SIZE>(parsed.size()), &parser, &reader);
  reader.finish();
  Document document;
  size_t cursor = 0;
  std::vector<MarkdownLayout> kept_layouts;
  for (Span& span : reader.spans) {
    if (span.begin < std::max(cursor, front) || span.end < span.begin) continue;
    document.add_verbatim(std::string(markdown.substr(cursor, span.begin - cursor)));
    cursor = span.end;
    if (!span.html_block) {
      document.add_segment(std::move(span.segment));
      kept_layouts.push_back(std::move(span.layout));
      continue;
    }
    const int line = 1 + static_cast<int>(std::count(markdown.begin(), markdown.begin() + span.begin, '\n'));
    splice_html_block(markdown.substr(span.begin, span.end - span.begin), line, name, document, kept_layouts,
                      warnings);
  }
  if (layouts != nullptr) *layouts = std::move(kept_layouts);
  document.add_verbatim(std::string(markdown.substr(cursor)));
  return document;
}

}  // namespace documents
