// libFuzzer target: arbitrary bytes through cli::LineReader with arbitrary buffer sizes, checked
// against a simple reference (split at LF, CRLF or a lone CR, sanitize each piece).
// Build: clang++ -std=c++17 -I. -fsanitize=fuzzer,address,undefined tests/fuzz/fuzz_line_reader.cc
//        cli/io/line_reader.cc core/utf8_text.cc cli/io/io_error.cc cli/io/output_file.cc
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io/input_encoding.h"
#include "cli/io/io_error.h"
#include "cli/io/line_reader.h"
#include "cli/io/output_file.h"  // write_all

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// UTF-8 validity decided independently of core/utf8_text.cc: decode code points by bit patterns, then
// reject overlongs, surrogates and values past U+10FFFF.
bool independent_valid_utf8(std::string_view s) {
  static const std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  for (std::size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    const int len = lead < 0x80         ? 1
                    : (lead >> 5) == 6  ? 2
                    : (lead >> 4) == 14 ? 3
                    : (lead >> 3) == 30 ? 4
                                        : 0;
    if (len == 0 || i + len > s.size()) return false;
    std::uint32_t cp = len == 1 ? lead : lead & (0x3F >> (len - 1));
    for (int k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 2) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += len;
  }
  return true;
}

// The reader's contract, written the slow and obvious way. raw_sizes: bytes before sanitizing
// (BOM included, ending excluded), which is what max_line_bytes limits.
std::vector<cli::Line> reference(std::string_view data, std::vector<std::size_t>& raw_sizes) {
  std::vector<cli::Line> lines;
  std::size_t start = 0;
  while (start < data.size()) {
    const std::size_t end = data.find_first_of("\r\n", start);
    std::string_view raw =
        data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    cli::LineEnding ending = cli::LineEnding::kNone;
    std::size_t ending_size = 0;
    if (end != std::string_view::npos) {
      const bool crlf = data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n';
      ending = crlf                ? cli::LineEnding::kCrLf
               : data[end] == '\r' ? cli::LineEnding::kCr
                                   : cli::LineEnding::kLf;
      ending_size = crlf ? 2 : 1;
    }
    raw_sizes.push_back(raw.size());
    if (lines.empty() && raw.substr(0, 3) == "\xEF\xBB\xBF") raw.remove_prefix(3);
    lines.push_back({core::sanitize_utf8(raw), ending});
    if (end == std::string_view::npos) break;
    start = end + ending_size;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size < 2) return 0;
  // Byte 0: buffer size 1..64 (exercises every chunk boundary); byte 1 bit 7: a line limit of 0..63.
  cli::LineReaderOptions options;
  options.buffer_size = 1 + bytes[0] % 64;
  if (bytes[1] & 0x80) options.max_line_bytes = bytes[1] & 0x3F;
  std::string_view data(reinterpret_cast<const char*>(bytes) + 2, size - 2);
  // The line splitting of text: other encodings (gzip, BOMs, binary) are cli::InputDecoder's, not
  // compared with this reference.
  if (cli::detect_input_encoding(data.substr(0, cli::kEncodingSampleBytes)) != cli::InputEncoding::kUtf8)
    return 0;

  std::vector<std::size_t> raw_sizes;
  const std::vector<cli::Line> expected = reference(data, raw_sizes);
  std::size_t endings = 0;  // every LF, and every CR not before an LF
  for (std::size_t i = 0; i < data.size(); ++i) {
    endings += data[i] == '\n' || (data[i] == '\r' && (i + 1 == data.size() || data[i + 1] != '\n'));
  }
  const bool tail = !data.empty() && data.back() != '\n' && data.back() != '\r';
  check(expected.size() == endings + (tail ? 1 : 0));

  // Byte 1 bit 5: read through a real descriptor (memfd) instead of from memory.
  core::UniqueFd memfd;
  if (bytes[1] & 0x20) {
    memfd.reset(::memfd_create("fuzz", MFD_CLOEXEC));
    check(memfd.valid() && cli::write_all(memfd.get(), data) == 0 && ::lseek(memfd.get(), 0, SEEK_SET) == 0);
  }
  cli::LineReader reader = memfd.valid() ? cli::LineReader(memfd.get(), "<fuzz>", options)
                                         : cli::LineReader::from_string(std::string(data), "<fuzz>", options);
  // Byte 1 bit 6: read through next_batch (a throwing batch loses the lines it had read).
  const bool use_batches = bytes[1] & 0x40;
  const std::size_t batch_lines = 1 + bytes[0] % 5;
  std::vector<cli::Line> got;
  bool too_long = false;
  try {
    if (use_batches) {
      for (;;) {
        std::vector<cli::Line> batch = reader.next_batch(batch_lines);
        if (batch.empty()) break;
        for (cli::Line& line : batch) got.push_back(std::move(line));
      }
    } else {
      cli::Line line;
      while (reader.next(line)) got.push_back(line);
    }
  } catch (const cli::IoError&) {
    too_long = true;
  }

  std::string reassembled;
  for (std::size_t i = 0; i < got.size(); ++i) {
    check(i < expected.size());
    check(got[i].text == expected[i].text);
    check(got[i].ending == expected[i].ending);
    check(core::is_valid_utf8(got[i].text) && independent_valid_utf8(got[i].text));
    check(got[i].text.find('\0') == std::string::npos);
    check(core::sanitize_utf8(got[i].text) == got[i].text);  // idempotent
    reassembled += got[i].text;
    reassembled += cli::line_ending_chars(got[i].ending);
  }
  // The error comes exactly at the first line over the limit, never earlier or later.
  std::size_t first_too_long = expected.size();
  for (std::size_t i = 0; i < raw_sizes.size() && first_too_long == expected.size(); ++i) {
    if (raw_sizes[i] > options.max_line_bytes) first_too_long = i;
  }
  check(too_long == (first_too_long < expected.size()));
  check(got.size() <= first_too_long);
  check(got.size() == first_too_long ||
        (too_long && use_batches && got.size() + batch_lines > first_too_long));
  if (!too_long) {
    check(core::is_valid_utf8(data) == independent_valid_utf8(data));
    bool plain = core::is_valid_utf8(data) && data.find('\0') == std::string_view::npos &&
                 data.substr(0, 3) != "\xEF\xBB\xBF";
    if (plain) check(reassembled == data);
  }

  // Messages built from hostile names stay one printable line.
  std::string printable = cli::printable_path(data);
  check(core::is_valid_utf8(printable));
  for (unsigned char c : printable) check(c >= 0x20 && c != 0x7F);
  return 0;
}
