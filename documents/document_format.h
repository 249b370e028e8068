// The formats `nmt translate --format` names, which of them are implemented, and which file extensions
// select them under `--format auto`.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace documents {

enum class DocumentFormat { kText, kHtml, kMarkdown, kSrt, kVtt, kDocx, kOdt, kPptx };

// Every name --format accepts on the command line, "auto" last.
const std::vector<std::string>& format_names();
// The implemented format of a --format value other than "auto". Throws core::UsageError (exit 64) naming
// the formats that work, for a value not supported yet or no format at all.
DocumentFormat format_from_name(const std::string& name);
// `--format auto`: by the path's extension (.html .htm .xhtml, .md .markdown, .srt, .vtt, .docx,
// .odt, .pptx); text for anything else.
DocumentFormat format_for_path(const std::string& path);
// The extensions format_for_path knows (lower case, without the dot), with their formats, in one table.
const std::vector<std::pair<std::string, DocumentFormat>>& document_extensions();
// The extension of the path's last component, lower case, without the dot; "" for none.
std::string path_extension(const std::string& path);

}  // namespace documents
