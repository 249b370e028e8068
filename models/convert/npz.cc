#include "models/convert/npz.h"

#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

#include "core/half.h"
#include "core/regular_file.h"
#include "models/convert/zip_member.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kMaxMember = uint64_t{16} << 30;  // 16 GiB: anything larger is not a model we can load
constexpr uint64_t kNpyHeaderProbe = 64 << 10;       // inflated first to check the shape (headers: ~100 B)

int npy_itemsize(NpyDType d) {
  switch (d) {
    case NpyDType::kF32:
      return 4;
    case NpyDType::kF16:
      return 2;
    case NpyDType::kI8:
    case NpyDType::kU8:
      return 1;
  }
  return 1;
}

// A tiny parser for the Python literal in a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class DictParser {
 public:
  DictParser(const std::string& text, const std::string& where) : s_(text), where_(where) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        if (have_descr) fail("key 'descr' appears twice");
        have_descr = true;
        h.dtype = descr(string_literal());
      } else if (key == "fortran_order") {
        if (have_order) fail("key 'fortran_order' appears twice");
        have_order = true;
        if (boolean()) fail("fortran_order True is not supported (C order only)");
      } else if (key == "shape") {
        if (have_shape) fail("key 'shape' appears twice");
        have_shape = true;
        h.shape = tuple();
      } else {
        fail("unexpected key '" + key + "' in the header");
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      if (peek() != '}') fail("expected ',' or '}' in the header");
    }
    expect('}');
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters after the header dict");
    if (!have_descr || !have_order || !have_shape) {
      fail(std::string("header lacks '") +
           (!have_descr   ? "descr"
            : !have_order ? "fortran_order"
                          : "shape") +
           "'");
    }
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw ModelError(where_ + ": " + problem); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("malformed header: expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("malformed header: expected a quoted string");
    ++pos_;
    const size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) fail("malformed header: unterminated string");
    std::string out = s_.substr(pos_, end - pos_);
    if (out.find('\\') != std::string::npos) fail("malformed header: escapes in strings are not supported");
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("malformed header: fortran_order must be True or False");
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("malformed header: shape must be a tuple of integers");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        v = v * 10 + (s_[pos_++] - '0');
        if (v > (int64_t{1} << 40)) fail("shape dimension too large");
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literals
      dims.push_back(v);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("malformed header: expected ',' or ')' in shape");
    }
    expect(')');
    return dims;
  }
  NpyDType descr(const std::string& d) {
    if (d == "<f4") return NpyDType::kF32;
    if (d == "<f2") return NpyDType::kF16;
    if (d == "|i1" || d == "<i1" || d == ">i1" || d == "i1") return NpyDType::kI8;
    if (d == "|u1" || d == "<u1" || d == ">u1" || d == "u1") return NpyDType::kU8;
    fail("dtype '" + d +
         "' is not supported (little-endian '<f4' or '<f2' weights, bytes for special arrays)");
  }

  const std::string& s_;
  const std::string& where_;
  size_t pos_ = 0;
};

uint32_t le16(const std::string& b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8;
}

uint32_t le32(const std::string& b, size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }

}  // namespace

const char* npy_dtype_name(NpyDType dtype) {
  switch (dtype) {
    case NpyDType::kF32:
      return "<f4";
    case NpyDType::kF16:
      return "<f2";
    case NpyDType::kI8:
      return "|i1";
    case NpyDType::kU8:
      return "|u1";
  }
  return "?";
}

NpyHeader parse_npy_header(const std::string& bytes, const std::string& where) {
  return parse_npy_preamble(bytes, bytes.size(), where);
}

NpyHeader parse_npy_preamble(const std::string& bytes, uint64_t total_size, const std::string& where) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0)
    throw ModelError(where + ": not a .npy array (bad magic)");
  const int major = static_cast<uint8_t>(bytes[6]), minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    throw ModelError(where + ": unsupported .npy version " + std::to_string(major) + "." +
                     std::to_string(minor));
  }
  size_t start = 10, length = le16(bytes, 8);
  if (major >= 2) {
    if (bytes.size() < 12) throw ModelError(where + ": truncated .npy header");
    start = 12;
    length = le32(bytes, 8);
  }
  if (length > total_size - start)
    throw ModelError(where + ": .npy header length runs past the end of the array");
  if (length > bytes.size() - start)
    throw ModelError(where + ": .npy header longer than " + std::to_string(bytes.size()) + " bytes");
  const std::string text = bytes.substr(start, length);
  if (text.empty() || text.back() != '\n')
    throw ModelError(where + ": .npy header does not end with a newline");
  if (major < 3) {
    for (char c : text) {
      if (static_cast<unsigned char>(c) >= 0x80)
        throw ModelError(where + ": non-ASCII .npy header (version < 3)");
    }
  }
  NpyHeader h = DictParser(text, where).parse();
  h.data_offset = start + length;
  uint64_t elements = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && elements > (uint64_t{1} << 50) / static_cast<uint64_t>(d))
      throw ModelError(where + ": shape too large");
    elements *= static_cast<uint64_t>(d);
  }
  const uint64_t expected = elements * static_cast<uint64_t>(npy_itemsize(h.dtype));
  const uint64_t have = total_size - h.data_offset;
  if (have != expected) {
    std::string shape = "(";
    for (size_t i = 0; i < h.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(h.shape[i]);
    throw ModelError(where + ": shape " + shape + ") " + npy_dtype_name(h.dtype) + " needs " +
                     std::to_string(expected) + " data bytes, the array has " + std::to_string(have));
  }
  return h;
}

NpyArray parse_npy(std::string bytes, const std::string& where) {
  const NpyHeader h = parse_npy_header(bytes, where);
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  bytes.erase(0, h.data_offset);
  a.data = std::move(bytes);
  return a;
}

uint64_t NpyArray::elements() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

std::vector<float> NpyArray::to_f32() const {
  const size_t n = static_cast<size_t>(elements());
  std::vector<float> out(n);
  if (dtype == NpyDType::kF32) {
    std::memcpy(out.data(), data.data(), n * sizeof(float));
  } else if (dtype == NpyDType::kF16) {
    std::vector<uint16_t> h(n);
    std::memcpy(h.data(), data.data(), n * sizeof(uint16_t));
    core::half_to_float(h.data(), out.data(), n);
  } else {
    throw std::logic_error("NpyArray::to_f32 on a byte array");
  }
  return out;
}

NpzFile::NpzFile(const std::string& path) : path_(path) {
  struct stat st;
  core::UniqueFd fd;
  try {
    fd = core::open_regular_file(path, "Marian model (.npz)", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  archive_size_ = static_cast<uint64_t>(st.st_size);
  int code = 0;
  zip_ = zip_fdopen(fd.get(), ZIP_RDONLY, &code);
  if (!zip_) throw ModelError(path + ": cannot open as a zip archive (.npz): " + zip_error_message(code));
  fd.release();  // the archive owns it now
  const zip_int64_t n = zip_get_num_entries(zip_, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(zip_, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    const std::string name = raw ? raw : "";
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".npy") != 0) {
      zip_discard(zip_);
      zip_ = nullptr;
      throw ModelError(path + ": member '" + name + "' is not a .npy array");
    }
    const std::string key = name.substr(0, name.size() - 4);
    if (!index_.emplace(key, static_cast<uint64_t>(i)).second) {
      zip_discard(zip_);
      zip_ = nullptr;
      throw ModelError(path + ": member '" + name + "' appears twice");
    }
  }
}

NpzFile::~NpzFile() {
  if (zip_) zip_discard(zip_);  // read-only: nothing to write back
}

std::vector<std::string> NpzFile::names() const {
  std::vector<std::string> out;
  for (const auto& kv : index_) out.push_back(kv.first);
  return out;
}

NpyArray NpzFile::read(const std::string& name) const {
  const std::string where = path_ + ": " + name + ".npy";
  auto it = index_.find(name);
  if (it == index_.end()) throw ModelError(path_ + ": no array '" + name + "'");
  // The .npy header's shape must match the member's size before more is inflated.
  const ZipHeadCheck header{kNpyHeaderProbe, [&](const std::string& head, uint64_t size) {
                              parse_npy_preamble(head, size, where);
                            }};
  std::string bytes;
  read_zip_member(zip_, it->second, archive_size_, kMaxMember, where, &bytes, &header);
  return parse_npy(std::move(bytes), where);
}

}  // namespace models
