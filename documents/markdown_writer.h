// Markdown written back: each segment's projected translation escaped where the model's characters would
// read as Markdown, and a paragraph whose source is wrapped over several lines wrapped again at the source's
// width with the source's continuation prefix (docs/formats.md, "Markdown").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/markdown_reader.h"
#include "documents/projection.h"
#include "documents/subtitles.h"

namespace documents {

// `name` labels warnings ("README.md:12: ...").
std::string translate_markdown(std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, const SegmentTranslator& translate);

// Model text as Markdown text: a backslash before `\ * [ ] ~ |` and `` ` ``, before `_` at a word's edge,
// before `<` that could open a tag or autolink and before `&` that could start an entity.
std::string escape_markdown_text(std::string_view text);

// `projected` (a segment's output, `markup` its source-markup bytes) laid out as `layout` says: filled into
// lines of at most layout.width code points, breaking only at spaces outside markup, links and images, and
// never before a word that would start a new block; a hard break's line end is kept. A segment whose source
// is one line stays one line. A first word that would start a block is escaped.
std::string wrap_markdown(const std::string& projected, const std::vector<MarkupRange>& markup,
                          const MarkdownLayout& layout);

}  // namespace documents
