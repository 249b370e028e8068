// Streaming line reader for the CLI input: bounded memory, exact line endings, valid UTF-8 out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io/input_decoder.h"
#include "core/unique_fd.h"
#include "core/utf8_text.h"  // sanitize_utf8(), exposed here for reuse and fuzzing

namespace cli {

// How a line ended in the input; writers reproduce it byte for byte. A CR not directly followed by
// LF ends a line too (old Mac text), so CR, LF, CRLF and mixed files give one line per ending.
enum class LineEnding : std::uint8_t {
  kNone,  // last line of the input, no newline after it
  kLf,    // "\n"
  kCrLf,  // "\r\n"
  kCr,    // "\r" alone
};

std::string_view line_ending_chars(LineEnding ending);

struct Line {
  std::string text;  // sanitize_utf8() of the bytes, ending removed
  LineEnding ending = LineEnding::kNone;
  bool continues = false;  // a piece of a line over max_line_bytes, more of it next (ending kNone)
};

// Where the first piece of a line longer than `max_bytes` ends, in (0, max_bytes]
// (cli/io/long_line_chunks.h).
using LongLineCutter = std::function<std::size_t(std::string_view text, std::size_t max_bytes)>;

struct LineReaderOptions {
  std::size_t buffer_size = 64 * 1024;                 // bytes per read(); tests use tiny values
  std::size_t max_line_bytes = std::size_t{64} << 20;  // longer lines throw IoError (ending not counted)
  // When set, a longer line is not an error: it comes out in pieces of at most max_line_bytes, cut here.
  LongLineCutter cut_long_line = nullptr;
  bool strip_bom = true;  // drop a UTF-8 BOM at the very start (see had_bom())
  // next_batch() returns early, with the lines it has, rather than block on an fd with no data ready:
  // a client that writes one line and waits for its translation must not deadlock. Regular files
  // are always ready, so their batches do not depend on timing; pipes and terminals may.
  bool stop_batch_when_idle = true;
};

// Reads lines one at a time. Memory is the buffer plus the current line, never the whole input.
// Every source goes through InputDecoder: gzip (by its magic bytes, whatever the name) is inflated,
// UTF-16/32 with a BOM becomes UTF-8, binary input throws IoError on the first read.
// Not thread-safe. Movable, not copyable.
class LineReader {
 public:
  // Reads a descriptor it does not own (e.g. 0). Blocking reads return per chunk, so interactive
  // stdin yields each line as soon as it is typed.
  LineReader(int fd, std::string name, LineReaderOptions options = {});
  // Reads a FILE* it does not own, via getc so that data already buffered in it is not lost.
  LineReader(std::FILE* file, std::string name, LineReaderOptions options = {});
  // Opens and owns `path`; "-" means stdin (fd 0). Throws IoError (missing, unreadable, directory;
  // for a regular file also binary or corrupt compressed data, checked now, before any work).
  static LineReader open(const std::string& path, LineReaderOptions options = {});
  // Reads and owns an open descriptor, named `name`.
  static LineReader adopt(core::UniqueFd fd, std::string name, LineReaderOptions options = {});
  // Reads from a copy of `data` (tests, fuzzing), in buffer_size chunks like a file.
  static LineReader from_string(std::string data, std::string name = "<memory>",
                                LineReaderOptions options = {});

  LineReader(LineReader&&) = default;
  LineReader& operator=(LineReader&&) = default;

  // Reads the input's first bytes and decides its encoding now (InputDecoder::start()).
  void check_encoding();

  // Next line into `line`; false (line untouched) at end of input. Empty input gives no lines; a
  // final newline does not start an extra empty line. Throws IoError on read errors and on a line
  // longer than max_line_bytes (after which the reader must not be used again), unless cut_long_line is
  // set: then such a line comes as pieces (`continues`), the last one with the line's ending.
  bool next(Line& line);

  // Sets max_line_bytes and cut_long_line from here on.
  void set_long_lines(std::size_t max_line_bytes, LongLineCutter cut);

  // Up to `max_lines` next lines or pieces (>= 1), stopping early once the lines hold >= `max_bytes` of text,
  // or when no more input has arrived yet (stop_batch_when_idle): it waits for the first line only.
  // Empty result = end of input. On an exception the lines already read for this batch are lost.
  std::vector<Line> next_batch(std::size_t max_lines, std::size_t max_bytes = SIZE_MAX);

  const std::string& name() const { return name_; }
  std::size_t max_line_bytes() const { return options_.max_line_bytes; }
  std::uint64_t lines_read() const { return lines_read_; }  // whole lines: pieces count at the last
  // Input bytes of the lines returned so far, endings included (progress against a file's size).
  std::uint64_t bytes_read() const { return bytes_read_; }
  // True if the input started with a UTF-8 BOM that was stripped; a writer that wants to keep the
  // file byte-identical in shape writes one back.
  bool had_bom() const { return had_bom_; }

 private:
  enum class Source { kFd, kFile, kMemory };
  LineReader(Source source, std::string name, LineReaderOptions options);
  RawInput raw_input();
  bool fill();             // next chunk into buffer_; false at end of input
  bool next_line_ready();  // next() would not block
  std::size_t read_raw(char* dst, std::size_t size);
  void emit(std::string_view raw, LineEnding ending, Line& line, bool continues = false);
  void emit_piece(Line& line);  // the first piece of partial_, cut by cut_long_line
  [[noreturn]] void throw_too_long() const;

  Source source_;
  std::string name_;
  LineReaderOptions options_;
  core::UniqueFd owned_fd_;  // set when we opened the file ourselves
  int fd_ = -1;
  std::FILE* file_ = nullptr;
  InputDecoder decoder_;
  std::string memory_;
  std::size_t memory_pos_ = 0;

  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;  // unread bytes are buffer_[pos_, end_)
  bool eof_ = false;
  std::string partial_;        // bytes of a line that spans chunks
  bool in_long_line_ = false;  // pieces of the current line were handed out; partial_ holds the rest
  std::uint64_t lines_read_ = 0;
  std::uint64_t bytes_read_ = 0;
  bool had_bom_ = false;
  bool pending_cr_ = false;  // the line in partial_ ended with a CR at the end of a chunk: LF may follow
};

}  // namespace cli
