// A translate_lines sink that writes gzip into an AtomicOutputFile: an output named "*.gz" (-o, and
// "x.txt.gz" in directory mode) is compressed, as its name says.
#pragma once

#include <memory>
#include <string_view>

#include "cli/io/line_reader.h"
#include "cli/io/output_file.h"

namespace cli {

class GzipFileSink {
 public:
  explicit GzipFileSink(AtomicOutputFile& file);
  ~GzipFileSink();
  GzipFileSink(const GzipFileSink&) = delete;
  GzipFileSink& operator=(const GzipFileSink&) = delete;

  void write_line(std::string_view text, LineEnding ending);
  void flush() {}
  // Ends the gzip stream; call before file.commit().
  void finish();

 private:
  void deflate_some(std::string_view data, int mode);

  struct Stream;
  AtomicOutputFile& file_;
  std::unique_ptr<Stream> stream_;
};

// Whether `path` names a gzip file (ends in ".gz").
bool is_gzip_path(std::string_view path);

}  // namespace cli
