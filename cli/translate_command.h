// `nmt translate`: stdin/stdout or files (stream mode), or whole directory trees (directory mode).
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/line_reader.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "cli/translate_flags.h"
#include "models/translator.h"

namespace cli {

enum class TextFormat { kText, kJsonl };  // --input-format / --output-format

struct TranslateCommandOptions {
  std::string model_dir;
  std::vector<std::string> texts;  // text arguments: each one input line, instead of -i
  std::string input = "-";
  bool input_given = false;  // -i (refused with text arguments)
  std::string output = "-";
  std::string input_dir;
  std::string output_dir;
  std::string glob;
  std::string shard = "0/1";
  bool overwrite = false;
  bool scores = false;
  bool stats = false;     // print a JSON line of timings and counts on stderr at the end
  bool progress = false;  // draw progress on stderr even when it is not a terminal
  bool quiet = false;     // no progress, no warnings (errors still)
  int threads = 0;        // 0: all cores
  TextFormat input_format = TextFormat::kText;
  TextFormat output_format = TextFormat::kText;
  std::string max_memory;  // --max-memory as given; "" = default_max_memory() (cli/memory_limit.h)
  TranslateFlags flags;    // as given
  models::TranslateOptions translate;  // the flags resolved against the model, once it loads
};

CLI::App* add_translate_command(CLI::App& app, TranslateCommandOptions& options);
int run_translate(const TranslateCommandOptions& options);

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
  void start_window(models::TranslateOptions& window_options) {
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
// malformed line gives one line ({"error": ...} or empty). Returns the number of malformed lines.
template <class Sink>
uint64_t translate_lines(const models::Translator& translator, LineReader& reader, Sink& sink,
                         const TranslateCommandOptions& options, TranslateStats* stats = nullptr);

}  // namespace cli

#include "cli/translate_lines.inl"
