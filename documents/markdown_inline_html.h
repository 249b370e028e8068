// Inline HTML in a Markdown paragraph. md4c hands it over as raw pieces; an open tag and its close tag
// become an element around the text between them (so `A <b>dog</b> runs` projects like `A **dog** runs`),
// and a construct md4c gives in pieces (a comment over two lines) is one insertion, a word of its own
// when it stands between spaces. A never-translated element (`<kbd>Ctrl</kbd>`, `<code>`, `<samp>`, `<var>`)
// is kept whole, as HTML keeps it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "documents/segment.h"

namespace documents {

class MarkdownInlineHtml {
 public:
  // The source bytes [begin, end) of `text`, an MD_TEXT_HTML piece of `run`'s paragraph, or the rest of
  // a construct that continues() (from the end of its last piece, line end and indentation included).
  void add(Segment& run, std::string_view text, size_t begin, size_t end);
  // Whether the last piece left its construct unfinished (md4c gives a comment over lines line by line).
  bool continues() const { return continues_; }
  // Elements from `element` on are gone: the reader kept a Markdown span around them whole.
  void forget_from(size_t element);
  // At the paragraph's end: what is still open closes there (the source has no close tag for it).
  void finish(Segment& run);
  // Whether `element` is an HTML element this opened, which no Markdown span may close.
  bool owns(size_t element) const;

 private:
  std::vector<std::pair<std::string, size_t>> open_;  // tag name, element index
  std::vector<size_t> open_begin_;                    // each open element's open tag, a source offset
  bool continues_ = false;                            // the last piece left its construct unfinished
  bool space_before_ = false;
};

}  // namespace documents
