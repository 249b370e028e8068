// Errors: library code throws, only main turns an exception into an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace core {

// Any failure the user should see as a one-line message.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad command-line values or option combinations (exit code 64).
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace core
