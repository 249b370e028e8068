// The library's one exception type at its edge: whatever the pipeline throws becomes an nmt::Error with
// the code `nmt` exits with for the same failure.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "nmt/error.h"

namespace api {

// The API's name of an options table field ("sampling.top_k" -> "sampling_top_k", "sampling.seed" -> "seed").
std::string option_name(const std::string& field);

// Rethrows the exception in flight as an nmt::Error (std::bad_alloc as it is). Call inside a catch block.
[[noreturn]] void rethrow_as_error();

// Runs `body`, turning what it throws into an nmt::Error.
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (...) {
    rethrow_as_error();
  }
}

}  // namespace api
