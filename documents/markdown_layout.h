// How a Markdown segment lies in its source lines, measured by the reader so that the writer lays its
// translation out alike (documents/markdown_writer.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace documents {

// How a segment lies in the source, so that its translation is laid out alike (documents/markdown_writer.h).
struct MarkdownLayout {
  bool html = false;            // a segment of an HTML block: HTML escaping, its line breaks are spaces
  size_t width = 0;             // the longest source line in code points; 0: the source is one line
  size_t first_column = 0;      // code points before the segment on its first line
  std::string continuation;     // the bytes before the text on each continuation line ("> ", indentation)
  std::string line_end = "\n";  // or "\r\n", as the source ends its lines
};

// The layout of the segment at source bytes [begin, end): its first line's prefix width and, if `wrapped`
// (it has soft line breaks), the width of its longest line with `continuation` and `line_end` as measured.
MarkdownLayout measure_layout(std::string_view text, size_t begin, size_t end, bool wrapped,
                              std::string continuation, std::string line_end);

// Columns as the layout counts them: UTF-8 code points.
size_t code_points(std::string_view text);

// The length of a YAML front matter block ("---" ... "---" or "..." lines) at the document's start: kept
// verbatim, as no Markdown reader renders it.
size_t front_matter_length(std::string_view text);

}  // namespace documents
