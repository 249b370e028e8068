#include "cli/io/input_decoder.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "cli/io/io_error.h"
#include "core/utf8_encode.h"

namespace cli {
namespace {

constexpr std::size_t kDecodeChunk = 64 * 1024;

constexpr std::uint32_t kReplacement = 0xFFFD;

std::uint32_t code_unit(std::string_view s, std::size_t at, std::size_t size, bool big_endian) {
  std::uint32_t value = 0;
  for (std::size_t k = 0; k < size; ++k) {
    const auto byte = static_cast<unsigned char>(s[at + (big_endian ? k : size - 1 - k)]);
    value = (value << 8) | byte;
  }
  return value;
}

}  // namespace

struct InputDecoder::Inflater {
  z_stream z{};
  std::string in;          // raw bytes z.next_in points into
  bool in_member = false;  // inside a gzip member whose end has not come yet
  Inflater() {
    if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::bad_alloc();  // 15 + 16: gzip framing
  }
  ~Inflater() { inflateEnd(&z); }
};

InputEncoding detect_text_encoding(std::string_view sample) {
  const InputEncoding outer = detect_input_encoding(sample);
  if (outer != InputEncoding::kGzip) return outer;
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::bad_alloc();
  std::string text(kEncodingSampleBytes, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(sample.data()));
  z.avail_in = static_cast<uInt>(sample.size());
  z.next_out = reinterpret_cast<Bytef*>(text.data());
  z.avail_out = static_cast<uInt>(text.size());
  const int rc = inflate(&z, Z_NO_FLUSH);
  text.resize(text.size() - z.avail_out);
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return InputEncoding::kGzip;  // reading says why
  const InputEncoding inner = detect_input_encoding(text);
  return inner == InputEncoding::kBinary || inner == InputEncoding::kGzip ? InputEncoding::kBinary
                                                                          : InputEncoding::kGzip;
}

InputDecoder::InputDecoder(std::string name) : name_(std::move(name)) {}
InputDecoder::~InputDecoder() = default;
InputDecoder::InputDecoder(InputDecoder&&) noexcept = default;
InputDecoder& InputDecoder::operator=(InputDecoder&&) noexcept = default;

void InputDecoder::fail(const std::string& what) const { throw IoError(printable_path(name_) + ": " + what); }

bool InputDecoder::read_raw(std::string& into, const RawInput& raw) {
  if (!raw_pending_.empty()) {
    into += raw_pending_;
    raw_pending_.clear();
    return true;
  }
  if (raw_ended_) return false;
  const std::size_t old = into.size();
  into.resize(old + kDecodeChunk);
  const std::size_t n = raw.read(&into[old], kDecodeChunk);
  into.resize(old + n);
  if (n == 0) raw_ended_ = true;
  return n > 0;
}

bool InputDecoder::next_plain(std::string& into, const RawInput& raw) {
  if (!inflater_) return read_raw(into, raw);
  Inflater& f = *inflater_;
  z_stream& z = f.z;
  for (;;) {
    if (z.avail_in == 0) {
      f.in.clear();
      if (!read_raw(f.in, raw)) {
        if (f.in_member) fail("truncated gzip data (unexpected end of file)");
        return false;
      }
      z.next_in = reinterpret_cast<Bytef*>(f.in.data());
      z.avail_in = static_cast<uInt>(f.in.size());
    }
    if (!f.in_member) {
      // After a member, another one may follow (gzip allows several); other bytes are ignored, as gzip does.
      if (*z.next_in != 0x1F) return false;
      inflateReset(&z);
      f.in_member = true;
    }
    const std::size_t before = into.size();
    into.resize(before + kDecodeChunk);
    z.next_out = reinterpret_cast<Bytef*>(&into[before]);
    z.avail_out = static_cast<uInt>(kDecodeChunk);
    const int rc = inflate(&z, Z_NO_FLUSH);
    into.resize(before + kDecodeChunk - z.avail_out);
    if (rc == Z_STREAM_END) {
      f.in_member = false;
    } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
      fail(std::string("corrupt gzip data (") + (z.msg ? z.msg : "invalid data") + ")");
    } else if (rc == Z_MEM_ERROR) {
      throw std::bad_alloc();
    }
    if (into.size() > before) return true;
  }
}

void InputDecoder::start(const RawInput& raw) {
  if (started_) return;
  started_ = true;
  std::string head;  // gzip's two magic bytes
  while (head.size() < 2 && read_raw(head, raw)) {
  }
  if (detect_input_encoding(head) == InputEncoding::kGzip) inflater_ = std::make_unique<Inflater>();
  raw_pending_ = std::move(head);
  // The sample: what the input holds up to kEncodingSampleBytes, or up to a pause in a pipe, so an
  // interactive client still gets each line translated as it sends it.
  std::string sample;
  bool more = true;
  const auto more_ready = [&] {
    return !raw_pending_.empty() || (inflater_ && inflater_->z.avail_in > 0) || raw.ready();
  };
  while (sample.size() < kEncodingSampleBytes && (more = next_plain(sample, raw)) && more_ready()) {
  }
  text_ = detect_input_encoding(std::string_view(sample).substr(0, kEncodingSampleBytes));
  if (text_ == InputEncoding::kBinary || text_ == InputEncoding::kGzip) {  // gzip in gzip: not text
    fail(std::string(kBinaryInputMessage));
  }
  append_text(sample, !more);
  ended_ = !more;
}

std::size_t InputDecoder::read(char* dst, std::size_t size, const RawInput& raw) {
  start(raw);
  while (out_pos_ == out_.size() && !ended_) {
    out_.clear();
    out_pos_ = 0;
    std::string plain;
    const bool more = next_plain(plain, raw);
    append_text(plain, !more);
    ended_ = !more;
  }
  const std::size_t n = std::min(size, out_.size() - out_pos_);
  std::memcpy(dst, out_.data() + out_pos_, n);
  out_pos_ += n;
  return n;
}

void InputDecoder::append_text(std::string_view bytes, bool last) {
  if (text_ == InputEncoding::kUtf8) {
    out_.append(bytes);
    return;
  }
  const bool utf16 = text_ == InputEncoding::kUtf16Le || text_ == InputEncoding::kUtf16Be;
  const bool big_endian = text_ == InputEncoding::kUtf16Be || text_ == InputEncoding::kUtf32Be;
  const std::size_t unit = utf16 ? 2 : 4;
  carry_.append(bytes);
  std::size_t i = 0;
  while (i + unit <= carry_.size()) {
    std::uint32_t cp = code_unit(carry_, i, unit, big_endian);
    std::size_t used = unit;
    if (utf16 && cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: its pair comes next
      if (i + 2 * unit > carry_.size() && !last) break;
      const std::uint32_t low =
          i + 2 * unit <= carry_.size() ? code_unit(carry_, i + unit, unit, big_endian) : 0;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        used = 2 * unit;
      } else {
        cp = kReplacement;
      }
    } else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
      cp = kReplacement;
    }
    core::append_utf8(out_, cp);
    i += used;
  }
  carry_.erase(0, i);
  if (last && !carry_.empty()) {  // a code unit cut off by the end of the input
    core::append_utf8(out_, kReplacement);
    carry_.clear();
  }
}

}  // namespace cli
