#include "cli/io_error.h"

#include <cstring>

#include "cli/utf8.h"

namespace cli {
namespace {

// strerror_r comes in a GNU (returns char*) and an XSI (returns int) flavour; accept both.
[[maybe_unused]] const char* strerror_result(const char* result, const char*) { return result; }
[[maybe_unused]] const char* strerror_result(int result, const char* buf) {
  return result == 0 ? buf : "unknown error";
}

std::string error_text(int err) {
  char buf[256] = {};
  return strerror_result(strerror_r(err, buf, sizeof buf), buf);
}

void append_hex_escape(std::string& out, unsigned char byte) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

}  // namespace

std::string printable_path(std::string_view path) {
  const auto* p = reinterpret_cast<const unsigned char*>(path.data());
  std::string out;
  out.reserve(path.size());
  std::size_t i = 0;
  while (i < path.size()) {
    if (p[i] < 0x20 || p[i] == 0x7F) {
      append_hex_escape(out, p[i++]);
      continue;
    }
    Utf8Step step = utf8_step(p + i, path.size() - i);
    if (step.valid) {
      out.append(path.data() + i, step.length);
    } else {
      for (std::size_t k = 0; k < step.length; ++k) append_hex_escape(out, p[i + k]);
    }
    i += step.length;
  }
  return out;
}

std::string errno_message(std::string_view path, std::string_view what, int err) {
  std::string msg = printable_path(path);
  msg += ": ";
  msg += what;
  msg += ": ";
  msg += error_text(err);
  return msg;
}

void throw_io_error(std::string_view path, std::string_view what, int err) {
  throw IoError(errno_message(path, what, err));
}

}  // namespace cli
