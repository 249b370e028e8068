// Errors: library code throws, only main turns an exception into an exit code.
#pragma once

#include <stdexcept>
#include <string>

#include "core/printable.h"

namespace core {

// Any failure the user should see as a one-line message. The message is made printable on construction
// (core/printable.h): messages quote file names, model JSON keys and values and tokenizer names, any of
// which may carry terminal escapes.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(printable(what)) {}
  explicit Error(const char* what) : Error(std::string(what)) {}
};

// Bad command-line values or option combinations (exit code 64).
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace core
