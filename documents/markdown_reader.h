// Markdown (CommonMark with GitHub tables, strikethrough and task lists) read with md4c into translatable
// segments over the source bytes: paragraphs, headings, list items and table cells. Markers, indentation,
// table rules, code blocks and spans, link destinations, HTML blocks and YAML front matter stay verbatim.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/segment.h"

namespace documents {

Document read_markdown(std::string_view markdown, const std::string& name,
                       std::vector<std::string>* warnings);

}  // namespace documents
