// Files the library reads and writes for Translator::translate_file.
#pragma once

#include <string>

namespace api {

// A file's bytes whole (core::read_regular_file: a regular file, at most kMaxFileBytes).
std::string read_file(const std::string& path);
constexpr unsigned long long kMaxFileBytes = 1ull << 32;

// `bytes` written to a temporary file beside `path`, synced, then renamed onto it: the output is all or
// nothing. Throws core::Error naming the file.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace api
