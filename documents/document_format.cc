#include "documents/document_format.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace documents {

namespace {

using F = DocumentFormat;

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// "a, b, c or d"
std::string spoken_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

const std::vector<FormatRow>& format_table() {
  // One row per format, so a new format is one added line.
  static const std::vector<FormatRow> table = {
      {"text", F::kText, {}},
      {"html", F::kHtml, {"html", "htm", "xhtml"}},
      {"xml", F::kXml, {"xml"}},
      {"markdown", F::kMarkdown, {"md", "markdown"}},
      {"srt", F::kSrt, {"srt"}},
      {"vtt", F::kVtt, {"vtt"}},
      {"docx", F::kDocx, {"docx"}, true},
      {"odt", F::kOdt, {"odt", "odp"}, true},  // an ODF presentation's text frames read as ODT's
      {"pptx", F::kPptx, {"pptx"}, true},
      {"epub", F::kEpub, {"epub"}, true},
  };
  return table;
}

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const FormatRow& row : format_table()) out.push_back(row.name);
    out.push_back("auto");
    return out;
  }();
  return names;
}

DocumentFormat format_from_name(const std::string& name) {
  for (const FormatRow& row : format_table()) {
    if (row.name == name) return row.format;
  }
  throw core::UsageError("--format " + name + " is not a format: use " + spoken_list(format_names()));
}

const std::vector<std::pair<std::string, DocumentFormat>>& document_extensions() {
  static const std::vector<std::pair<std::string, DocumentFormat>> extensions = [] {
    std::vector<std::pair<std::string, DocumentFormat>> out;
    for (const FormatRow& row : format_table()) {
      for (const std::string& ext : row.extensions) out.emplace_back(ext, row.format);
    }
    return out;
  }();
  return extensions;
}

bool is_zip_package(DocumentFormat format) {
  for (const FormatRow& row : format_table()) {
    if (row.format == format) return row.zip_package;
  }
  return false;
}

std::string path_extension(const std::string& path) { return lower_extension(path); }

DocumentFormat format_for_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  for (const auto& [known, format] : document_extensions()) {
    if (ext == known) return format;
  }
  return DocumentFormat::kText;
}

}  // namespace documents
