// The stage between an input's bytes and LineReader: gzip is inflated (found by its magic bytes,
// whatever the name), UTF-16 and UTF-32 with a BOM become UTF-8, and binary input is refused, all by
// the rule of cli/io/input_encoding.h.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cli/io/input_encoding.h"

namespace cli {

// detect_input_encoding() of the text an input holds: for gzip, of what `sample` (its first bytes)
// inflates to, kBinary when that is not text and kGzip when it is (or is corrupt: reading says so).
// Directory mode skips what this calls binary; InputDecoder refuses the same.
InputEncoding detect_text_encoding(std::string_view sample);

// Where the raw bytes come from; passed on each call so the decoder holds no pointer into its owner.
struct RawInput {
  std::function<std::size_t(char* dst, std::size_t size)> read;  // 0 at end of input
  std::function<bool()> ready;  // more bytes can be read without blocking (a pipe may pause)
};

class InputDecoder {
 public:
  explicit InputDecoder(std::string name);
  ~InputDecoder();
  InputDecoder(InputDecoder&&) noexcept;
  InputDecoder& operator=(InputDecoder&&) noexcept;

  // Reads the first bytes (up to kEncodingSampleBytes, or what a pipe has ready) and decides the
  // encoding; read() does it when not done yet. Throws IoError naming the input when it is binary,
  // or its gzip data is corrupt or cut short.
  void start(const RawInput& raw);
  // Up to `size` bytes of UTF-8 (as well-formed as the input) into `dst`; 0 at end of input.
  std::size_t read(char* dst, std::size_t size, const RawInput& raw);
  // Decoded bytes are waiting: read() returns them without touching the input.
  bool has_buffered() const { return out_pos_ < out_.size(); }
  // The input's encoding once started; kGzip is not one of them (compressed() says that).
  InputEncoding encoding() const { return text_; }
  bool compressed() const { return inflater_ != nullptr; }

 private:
  struct Inflater;
  bool read_raw(std::string& into, const RawInput& raw);    // appends; false at end of input
  bool next_plain(std::string& into, const RawInput& raw);  // appends uncompressed bytes; false at end
  void append_text(std::string_view bytes, bool last);      // decodes into out_
  [[noreturn]] void fail(const std::string& what) const;

  std::string name_;
  bool started_ = false;
  bool ended_ = false;       // nothing more will be decoded
  bool raw_ended_ = false;   // the raw input returned 0
  std::string raw_pending_;  // raw bytes read while sniffing, not yet consumed
  std::unique_ptr<Inflater> inflater_;
  InputEncoding text_ = InputEncoding::kUtf8;
  std::string carry_;  // UTF-16/32 bytes of a code unit or surrogate pair split across chunks
  std::string out_;
  std::size_t out_pos_ = 0;
};

}  // namespace cli
