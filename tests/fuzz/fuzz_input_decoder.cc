// libFuzzer target: arbitrary bytes through cli::InputDecoder (gzip found by its magic, UTF-16/32 by its BOM,
// binary refused), served in pieces of varying size by a source that pauses. Anything but a clean IoError
// is a finding, and so is decoded output more than 4x the input when it is not gzip (UTF-16 to UTF-8 at most
// 1.5x, UTF-32 at most 1x; gzip is bounded by libFuzzer's malloc and RSS limits instead).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/io/input_decoder.h"
#include "cli/io/io_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the read size (1..256) so pieces cut through BOMs, gzip headers and characters.
  const std::size_t piece = static_cast<std::size_t>(data[0]) + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t at = 0;
  bool paused = false;
  cli::RawInput raw;
  raw.read = [&](char* dst, std::size_t n) {
    const std::size_t k = std::min({n, piece, input.size() - at});
    input.copy(dst, k, at);
    at += k;
    return k;
  };
  raw.ready = [&] { return (paused = !paused); };  // every other poll finds nothing yet
  const bool gzip = input.size() >= 2 && static_cast<unsigned char>(input[0]) == 0x1f &&
                    static_cast<unsigned char>(input[1]) == 0x8b;
  try {
    cli::InputDecoder decoder("fuzz");
    decoder.start(raw);
    char buf[97];
    std::size_t total = 0;
    for (std::size_t n; (n = decoder.read(buf, sizeof buf, raw)) > 0;) {
      total += n;
      if (!gzip && total > 4 * input.size() + 16) std::abort();
    }
  } catch (const cli::IoError&) {
  }
  return 0;
}
