// A stream of lines through the translator: read window by window, translated, formatted, written.
#pragma once

#include <iostream>
#include <string>

#include "cli/io/line_reader.h"
#include "cli/io/output_file.h"
#include "cli/io/progress.h"
#include "cli/io/quality_report.h"
#include "cli/translate_command_options.h"
#include "pipeline/translator.h"

namespace cli {

// AtomicOutputFile as a translate_lines sink: no per-batch flush, the file appears only when complete.
struct FileSink {
  AtomicOutputFile& file;
  void write_line(std::string_view text, LineEnding ending) { file.write_line(text, ending); }
  void flush() {}
  void warn(const std::string& text) { std::cerr << "nmt: warning: " << text << "\n"; }
};

// Forwards to `inner` and tells `progress` where the run is: each read window as it goes to the
// translator, and the reader's position once the window is written, on top of the lines and bytes of
// earlier files (directory mode).
template <class Inner>
struct ProgressSink {
  Inner& inner;
  const LineReader& reader;
  ProgressBar& progress;
  uint64_t lines_before = 0;
  uint64_t bytes_before = 0;
  bool quiet = false;          // --quiet: warnings are dropped
  uint64_t bytes_flushed = 0;  // the reader's position after the last window written
  void write_line(std::string_view text, LineEnding ending) { inner.write_line(text, ending); }
  void warn(const std::string& text) {
    if (!quiet) progress.print("nmt: warning: " + text);
  }
  void start_window(pipeline::TranslateOptions& window_options) {
    window_options.progress =
        progress.start_window(bytes_before + bytes_flushed, bytes_before + reader.bytes_read());
  }
  void flush() {
    inner.flush();
    bytes_flushed = reader.bytes_read();
    progress.update(lines_before + reader.lines_read(), bytes_before + bytes_flushed);
  }
};

struct TranslateStats {
  uint64_t lines = 0;
  uint64_t target_tokens = 0;  // pieces generated for the best hypotheses, EOS excluded
};

// Translates every line of `reader` into `write_line(text, ending)`, window by window, calling
// `start_window(options)` before translating a window (it may set options.progress), `flush()` after
// each window and `warn(text)` for a line split because it was too long or a malformed JSON line
// ("FILE:LINE: ..."). One output line per input line (n-best: n lines), in input order; a
// malformed line gives one line ({"error": ...} or empty). Each translated line goes into `report` when
// given. Returns the number of malformed lines.
template <class Sink>
uint64_t translate_lines(const pipeline::Translator& translator, LineReader& reader, Sink& sink,
                         const TranslateCommandOptions& options, TranslateStats* stats = nullptr,
                         QualityReport* report = nullptr);

}  // namespace cli

#include "cli/io/translate_lines.inl"
