// I/O failures of the CLI layer, as exceptions with one-line messages "PATH: problem[: strerror]".
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace cli {

// Any file, pipe or directory failure. A core::Error (so a std::runtime_error): main prints what().
class IoError : public core::Error {
 public:
  using core::Error::Error;
};

// The reader of our output went away (write returned EPIPE; SIGPIPE must be ignored, see
// ignore_sigpipe()). Derived from IoError so a handler that does not know it still fails loudly;
// main catches it first and exits quietly with status 141 (128 + SIGPIPE, what a shell reports
// for a tool killed by SIGPIPE), so `set -o pipefail` scripts see the same result as with any tool.
class BrokenPipe : public IoError {
 public:
  using IoError::IoError;
};

// The device or quota is full (ENOSPC, EDQUOT): every later write would fail too, so a run of many
// files stops at the first one (throw_io_error throws it for those errors).
class NoSpace : public IoError {
 public:
  using IoError::IoError;
};

// A path made safe for a one-line message (core::printable: control bytes, DEL, C1 controls and invalid
// UTF-8 bytes become \xNN; file names may contain newlines or arbitrary bytes).
std::string printable_path(std::string_view path);

// "PATH: what: strerror(err)" with PATH made printable.
std::string errno_message(std::string_view path, std::string_view what, int err);

[[noreturn]] void throw_io_error(std::string_view path, std::string_view what, int err);

}  // namespace cli
