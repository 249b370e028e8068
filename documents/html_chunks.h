// A big HTML page cut into chunks that each parse alone as they parse inside the page, so a page is read,
// translated and written a chunk at a time and its memory stays bounded by the chunk, not the page.
//
// A cut falls only right after the end tag of a translated block element (p, li, h2, div, table, ...) whose
// open ancestors are all containers (html, body, div, section, ul, ...) without translate="no": no
// sentence, inline element or never-translated element spans it. A light tokenizer follows the tags; where
// the markup leaves its simple model (an end tag that does not close the element open last, text inside a
// table, a script in escaped mode), the rest of the page is one chunk, so any page reads as it does whole.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace documents {

struct HtmlChunk {
  size_t begin = 0, end = 0;  // the page's bytes [begin, end)
  // Markup that puts the parser where the page has it at `begin`: the page's doctype (line breaks as spaces,
  // so line numbers hold) and the open containers' bare start tags. Empty for the first chunk.
  std::string context;
  int first_line = 1;  // the page's line at `begin`
};

class HtmlChunker {
 public:
  // Chunks of at least `target_size` bytes (but the last); a page without safe cuts is one chunk.
  HtmlChunker(std::string_view html, size_t target_size);

  // The next chunk in page order; false after the last.
  bool next(HtmlChunk* chunk);

 private:
  struct Open {
    std::string name;
    bool container = false;  // a safe ancestor for a cut
    bool never = false;      // never translated
  };
  struct Tag {
    std::string name;  // lower case
    bool never = false, self_closing = false;
    size_t end = 0;  // just past its '>', npos when the page ends first
  };

  // Scans one token at pos_; true when a cut may fall right after it.
  bool scan_token();
  void skip_to(size_t end);
  Tag read_tag(size_t name_begin) const;
  bool start_tag(size_t name_begin);
  bool end_tag(size_t name_begin);
  bool in_foreign() const;
  bool in_table() const;
  std::string context() const;

  std::string_view html_;
  size_t target_size_;
  size_t pos_ = 0;  // the tokenizer's place
  size_t chunk_begin_ = 0;
  int line_ = 1;        // the line at chunk_begin_
  bool simple_ = true;  // the markup so far fits the tokenizer's model
  bool done_ = false;
  std::string begin_context_;  // the context of the chunk at chunk_begin_
  std::string doctype_;
  bool doctype_allowed_ = true;  // only whitespace and comments so far
  std::vector<Open> open_;
};

}  // namespace documents
