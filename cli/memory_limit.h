// --max-memory: the size syntax, its default, and fitting the batch size to it before a run starts.
#pragma once

#include <cstdint>
#include <string>

#include "models/translator.h"

namespace cli {

// "1.5G", "800M", "64k", "2GB", "3GiB" or plain bytes (binary units); throws core::UsageError naming
// --max-memory otherwise, or for less than 1 MiB.
uint64_t parse_memory_size(const std::string& text);

// "1.5 GiB", "800 MiB": a size for messages.
std::string format_memory_size(uint64_t bytes);

// A quarter of physical memory, and at most half of the address-space limit (`ulimit -v`) when set.
uint64_t default_max_memory();

struct BatchFit {
  int batch_size = 0;   // what to use: the requested size, or less to stay within the limit
  std::string warning;  // set when the batch size was reduced
};

// The largest batch size up to `resolved.batch_size` whose worst case (models/batch_memory.h), one
// batch in flight per thread, fits in `max_memory` beside what the process already holds
// (`resident_bytes`: the loaded model). Throws core::UsageError, one line, when not even a batch of
// one sentence fits.
BatchFit fit_batch_to_memory(const models::Translator& translator, const models::TranslateOptions& resolved,
                             uint64_t max_memory, uint64_t resident_bytes, int threads);

// The process's resident set now (/proc/self/statm); 0 when unknown.
uint64_t resident_bytes();

}  // namespace cli
