// Markdown (CommonMark with GitHub tables, strikethrough and task lists) read with md4c into translatable
// segments over the source bytes: paragraphs, headings, list items and table cells, and the HTML reader's
// segments of HTML blocks. Markers, indentation, table rules, code blocks and spans, link destinations and
// YAML front matter stay verbatim.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/segment.h"

namespace documents {

// How a segment lies in the source, so that its translation is laid out alike (documents/markdown_writer.h).
struct MarkdownLayout {
  bool html = false;            // a segment of an HTML block: HTML escaping, its line breaks are spaces
  size_t width = 0;             // the longest source line in code points; 0: the source is one line
  size_t first_column = 0;      // code points before the segment on its first line
  std::string continuation;     // the bytes before the text on each continuation line ("> ", indentation)
  std::string line_end = "\n";  // or "\r\n", as the source ends its lines
};

// `layouts`, when given, receives one layout per segment of the document.
Document read_markdown(std::string_view markdown, const std::string& name, std::vector<std::string>* warnings,
                       std::vector<MarkdownLayout>* layouts = nullptr);

}  // namespace documents
