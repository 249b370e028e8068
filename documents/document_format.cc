#include "documents/document_format.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace documents {

namespace {

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"text", "html", "xml",  "markdown", "srt", "vtt",
                                                 "docx", "odt",  "pptx", "epub",     "auto"};
  return names;
}

DocumentFormat format_from_name(const std::string& name) {
  if (name == "text") return DocumentFormat::kText;
  if (name == "html") return DocumentFormat::kHtml;
  if (name == "markdown") return DocumentFormat::kMarkdown;
  if (name == "srt") return DocumentFormat::kSrt;
  if (name == "vtt") return DocumentFormat::kVtt;
  if (name == "docx") return DocumentFormat::kDocx;
  if (name == "odt") return DocumentFormat::kOdt;
  if (name == "pptx") return DocumentFormat::kPptx;
  const bool named = std::find(format_names().begin(), format_names().end(), name) != format_names().end();
  throw core::UsageError("--format " + name + (named ? " is not supported yet" : " is not a format") +
                         ": use text, html, markdown, srt, vtt, docx, odt, pptx or auto");
}

const std::vector<std::pair<std::string, DocumentFormat>>& document_extensions() {
  static const std::vector<std::pair<std::string, DocumentFormat>> extensions = {
      {"html", DocumentFormat::kHtml},         {"htm", DocumentFormat::kHtml},
      {"xhtml", DocumentFormat::kHtml},        {"md", DocumentFormat::kMarkdown},
      {"markdown", DocumentFormat::kMarkdown}, {"srt", DocumentFormat::kSrt},
      {"vtt", DocumentFormat::kVtt},           {"docx", DocumentFormat::kDocx},
      {"odt", DocumentFormat::kOdt},           {"pptx", DocumentFormat::kPptx}};
  return extensions;
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
