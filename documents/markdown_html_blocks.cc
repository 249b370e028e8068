#include "documents/markdown_html_blocks.h"

#include <cctype>

#include "documents/html_reader.h"
#include "documents/nesting.h"

namespace documents {

namespace {

// "NAME:LINE: text" with `offset` added to LINE.
std::string with_line_offset(const std::string& warning, const std::string& name, int offset) {
  const size_t at = name.size() + 1;
  if (warning.compare(0, at, name + ":") != 0) return warning;
  size_t end = at;
  while (end < warning.size() && std::isdigit(static_cast<unsigned char>(warning[end]))) ++end;
  if (end == at) return warning;
  return warning.substr(0, at) + std::to_string(std::stoi(warning.substr(at, end - at)) + offset) +
         warning.substr(end);
}

}  // namespace

void splice_html_block(std::string_view block, int first_line, const std::string& name, Document& document,
                       std::vector<MarkdownLayout>& layouts, std::vector<std::string>* warnings) {
  std::vector<std::string> html_warnings;
  Document html;
  try {
    html = read_html(block, HtmlPass::kText, name, warnings != nullptr ? &html_warnings : nullptr);
  } catch (const TooDeep& e) {  // the block stays as it is; the rest of the file is translated
    if (warnings) warnings->push_back(with_line_offset(e.what(), name, first_line - 1) + "; kept as it is");
    document.add_verbatim(std::string(block));
    return;
  }
  for (const std::string& warning : html_warnings)
    warnings->push_back(with_line_offset(warning, name, first_line - 1));
  for (Document::Part& part : html.parts) {
    if (part.segment < 0) {
      document.add_verbatim(std::move(part.verbatim));
      continue;
    }
    Segment& segment = html.segments[part.segment];
    segment.line += first_line - 1;
    document.add_segment(std::move(segment));
    MarkdownLayout layout;
    layout.html = true;
    layouts.push_back(std::move(layout));
  }
}

}  // namespace documents
