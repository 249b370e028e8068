#include "cli/io/io_error.h"

#include <cerrno>
#include <cstring>

#include "core/printable.h"

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

}  // namespace

std::string printable_path(std::string_view path) { return core::printable(path); }

std::string errno_message(std::string_view path, std::string_view what, int err) {
  std::string msg = printable_path(path);
  msg += ": ";
  msg += what;
  msg += ": ";
  msg += error_text(err);
  return msg;
}

void throw_io_error(std::string_view path, std::string_view what, int err) {
  if (err == ENOSPC || err == EDQUOT) throw NoSpace(errno_message(path, what, err));
  throw IoError(errno_message(path, what, err));
}

}  // namespace cli
