// `nmt translate --format`: which format an input is, and a whole document translated in one piece (the
// document path of stream and directory mode; plain text goes line by line through translate_lines).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "cli/io/line_reader.h"
#include "cli/io/progress.h"
#include "cli/io/quality_report.h"
#include "cli/translate_command_options.h"
#include "documents/document_format.h"

namespace cli {

// The document format of `path` ("-" for standard input or text arguments) under --format.
documents::DocumentFormat document_format(const std::string& format_option, const std::string& path);

// Refuses, before the model loads, --format values that are no format and the combinations a document
// cannot take (jsonl, --n-best, --scores) with a document format given or, for `document_input`, chosen
// by --format auto from the input's extension.
void check_document_options(const TranslateCommandOptions& options, const std::string& format_option,
                            bool document_input);

// What a document's translation reports besides its text, each optional: every segment into `report`
// (one "line" each) and, under --flag-warnings, a FILE:LINE warning per flagged one; its progress onto
// `progress`, its bytes counted after `bytes_before` (the earlier files' in directory mode).
struct DocumentFollowers {
  QualityReport* report = nullptr;
  ProgressBar* progress = nullptr;
  uint64_t bytes_before = 0;
};

// The bytes of fd (or of `input`: "-" for standard input) translated as a document; warnings to stderr
// unless quiet.
std::string translate_document_bytes(const pipeline::Translator& translator,
                                     const TranslateCommandOptions& options, documents::DocumentFormat format,
                                     const std::string& bytes, const std::string& name,
                                     const DocumentFollowers& followers = {});
// The same handed to `write` piece by piece, in order: an HTML page a chunk at a time, so its memory stays
// bounded (documents/html_chunks.h).
void translate_document_pieces(const pipeline::Translator& translator, const TranslateCommandOptions& options,
                               documents::DocumentFormat format, const std::string& bytes,
                               const std::string& name, const std::function<void(std::string_view)>& write,
                               const DocumentFollowers& followers = {});

// A translated document through a sink that writes lines (OutputTarget, AtomicOutputFile), line endings kept.
template <class Sink>
void write_document(Sink& sink, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) {
      sink.write_line(text.substr(i), LineEnding::kNone);
      break;
    }
    const bool crlf = nl > i && text[nl - 1] == '\r';
    sink.write_line(text.substr(i, nl - i - crlf), crlf ? LineEnding::kCrLf : LineEnding::kLf);
    i = nl + 1;
  }
}

// All of a file or of standard input ("-").
std::string read_whole_input(const std::string& path);
std::string read_whole_fd(int fd, const std::string& name);

}  // namespace cli
