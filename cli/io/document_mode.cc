#include "cli/io/document_mode.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "cli/io/io_error.h"
#include "cli/io/translate_stream.h"
#include "cli/memory_limit.h"
#include "core/error.h"
#include "core/unique_fd.h"
#include "documents/translate_document.h"

namespace cli {

documents::DocumentFormat document_format(const std::string& format_option, const std::string& path) {
  if (format_option != "auto") return documents::format_from_name(format_option);
  return path == "-" ? documents::DocumentFormat::kText : documents::format_for_path(path);
}

void check_document_options(const TranslateCommandOptions& o, const std::string& format_option,
                            bool document_input) {
  if (format_option != "auto" && format_option != "text") {
    documents::format_from_name(format_option);  // throws for a value that is no format
  } else if (!document_input) {
    return;
  }
  const pipeline::TranslateOptions flags = o.flags.apply({});
  if (o.input_format != TextFormat::kText || o.output_format != TextFormat::kText || o.scores ||
      flags.n_best > 1 || flags.alignment || flags.word_scores) {
    throw core::UsageError("--format " + format_option +
                           (format_option == "auto" ? " reads a document and" : "") +
                           " writes the document itself: --input-format, --output-format, --scores, "
                           "--n-best, --alignment and --word-scores need --format text");
  }
}

std::string read_whole_fd(int fd, const std::string& name) {
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io_error(name, "cannot read", errno);
    }
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

std::string read_whole_input(const std::string& path) {
  if (path == "-") return read_whole_fd(0, "standard input");
  core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw_io_error(path, "cannot open for reading", errno);
  return read_whole_fd(fd.get(), path);
}

void translate_document_pieces(const pipeline::Translator& translator, const TranslateCommandOptions& o,
                               documents::DocumentFormat format, const std::string& bytes,
                               const std::string& name, const std::function<void(std::string_view)>& write,
                               const DocumentFollowers& followers) {
  std::vector<std::string> warnings;
  documents::DocumentHooks hooks;
  hooks.segment_done = [&](const std::string& position, const documents::SegmentTranslation& t) {
    pipeline::Translation as_line;  // what the report and the flag warning read of a translated line
    as_line.flags = {t.flags};
    as_line.confidences = {t.confidence};
    if (followers.report) followers.report->add(position, as_line);
    if (!o.front.flag_warnings) return;
    if (const std::string w = flag_warning(as_line, 0); !w.empty()) warnings.push_back(position + ": " + w);
  };
  if (ProgressBar* progress = followers.progress) {
    hooks.start_window = [progress, before = followers.bytes_before](uint64_t from, uint64_t to) {
      return progress->start_window(before + from, before + to);
    };
  }
  // Printed after each piece (an HTML chunk, a window of cues), so a long file's warnings are not held.
  const auto print_warnings = [&]() {
    for (const std::string& w : o.quiet ? std::vector<std::string>() : warnings) {
      if (followers.progress) {
        followers.progress->print("nmt: warning: " + w);
      } else {
        std::cerr << "nmt: warning: " << w << "\n";
      }
    }
    warnings.clear();
  };
  const uint64_t max_memory = o.max_memory.empty() ? default_max_memory() : parse_memory_size(o.max_memory);
  documents::write_translated_document(
      translator, o.translate, format, bytes, name, &warnings,
      [&](std::string_view piece) {
        write(piece);
        print_warnings();
      },
      documents::kHtmlChunkBytes, documents::max_inflated_for(max_memory), hooks);
  print_warnings();
}

std::string translate_document_bytes(const pipeline::Translator& translator, const TranslateCommandOptions& o,
                                     documents::DocumentFormat format, const std::string& bytes,
                                     const std::string& name, const DocumentFollowers& followers) {
  std::string out;
  translate_document_pieces(
      translator, o, format, bytes, name, [&out](std::string_view piece) { out += piece; }, followers);
  return out;
}

}  // namespace cli
