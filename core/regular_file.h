// Opening the files we only read (model descriptions, weights, tokenizer models, vocabularies, converter
// inputs): a FIFO never blocks the open, a device or directory is refused instead of read forever.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/unique_fd.h"

namespace core {

// Opens `path` read-only with O_NONBLOCK (so a FIFO cannot block), fstats it and refuses anything but a
// regular file, then clears O_NONBLOCK. `what` names the file's role in messages ("model description").
// Throws core::Error "PATH: problem" with PATH made printable. Fills *st when given.
UniqueFd open_regular_file(const std::string& path, std::string_view what, struct stat* st = nullptr);

// The same without throwing, for callers that report per file: an invalid fd and *err = errno, or EINVAL
// when `path` is not a regular file (*st, when given, then tells what it is).
UniqueFd try_open_regular_file(const std::string& path, int* err, struct stat* st = nullptr);

// The whole of the regular file `path`, refused when it is larger than max_bytes (checked on the size
// fstat reports and again while reading, for a file that grows).
std::string read_regular_file(const std::string& path, std::string_view what, uint64_t max_bytes);

// At most the first `n` bytes of `path`, for telling file formats apart; "" when it is not a readable
// regular file (the reader chosen then says why).
std::string regular_file_head(const std::string& path, size_t n);

}  // namespace core
