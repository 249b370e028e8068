// Markdown (CommonMark with GitHub tables, strikethrough and task lists) read with md4c into translatable
// segments over the source bytes: paragraphs, headings, list items and table cells, and the HTML reader's
// segments of HTML blocks. Markers, indentation, table rules, code blocks and spans, link destinations and
// YAML front matter stay verbatim.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/markdown_layout.h"
#include "documents/segment.h"

namespace documents {

// `layouts`, when given, receives one layout per segment of the document.
Document read_markdown(std::string_view markdown, const std::string& name, std::vector<std::string>* warnings,
                       std::vector<MarkdownLayout>* layouts = nullptr);

}  // namespace documents
