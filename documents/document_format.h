// The formats `nmt translate --format` names, which of them are implemented, and which file extensions
// select them under `--format auto`: one table, one row per format.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace documents {

enum class DocumentFormat { kText, kHtml, kXml, kMarkdown, kSrt, kVtt, kDocx, kOdt, kPptx, kEpub };

// A row of the format table.
struct FormatRow {
  std::string name;  // the --format value
  DocumentFormat format;
  std::vector<std::string> extensions;  // lower case, without the dot, that select it under auto
  bool zip_package = false;             // a binary zip archive (directory mode must not skip it)
};

// Every format, in the order --format lists them ("auto" is not a row).
const std::vector<FormatRow>& format_table();
// Every name --format accepts on the command line, "auto" last.
const std::vector<std::string>& format_names();
// The format of a --format value other than "auto". Throws core::UsageError (exit 64) naming the formats
// for a value that is none of them.
DocumentFormat format_from_name(const std::string& name);
// `--format auto`: by the path's extension as format_table() lists them; text for anything else.
DocumentFormat format_for_path(const std::string& path);
// The extensions format_for_path knows (lower case, without the dot), with their formats.
const std::vector<std::pair<std::string, DocumentFormat>>& document_extensions();
// Whether the format is a zip package (binary on disk).
bool is_zip_package(DocumentFormat format);
// The extension of the path's last component, lower case, without the dot; "" for none.
std::string path_extension(const std::string& path);

}  // namespace documents
