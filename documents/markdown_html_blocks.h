// An HTML block inside Markdown read by the HTML reader and spliced into the Markdown document, so its
// text is translated with its tags kept and its never-translated elements kept byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/markdown_reader.h"

namespace documents {

// Appends `block` (which starts on line `first_line` of the Markdown source) to `document` as the HTML
// reader's verbatim parts and segments, one HTML layout per segment to `layouts`; the HTML reader's warnings
// go to `warnings` with lines counted in the Markdown source.
void splice_html_block(std::string_view block, int first_line, const std::string& name, Document& document,
                       std::vector<MarkdownLayout>& layouts, std::vector<std::string>* warnings);

}  // namespace documents
