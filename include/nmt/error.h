// The one exception type of the library: every failure of nmt::Translator is an nmt::Error with a code
// and a one-line message.
#pragma once

#include <stdexcept>
#include <string>

#include "nmt/export.h"

namespace nmt {

// What kind of failure; the values are the exit codes `nmt` gives for the same failure (README.md).
enum class ErrorCode {
  kFailure = 1,           // a bad input (a malformed document), an I/O error, anything else
  kModel = 2,             // the model directory is unusable (missing, bad JSON, tensors, tokenizer)
  kInvalidArgument = 64,  // an option out of range or a combination the model cannot take
};

class NMT_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// "failure", "model", "invalid-argument".
NMT_API const char* error_code_name(ErrorCode code);

}  // namespace nmt
