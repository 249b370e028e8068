// --max-memory: the size syntax, its default, and fitting the batch size to it before a run starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/translator.h"

namespace cli {

// "1.5G", "800M", "64k", "2GB", "3GiB" or plain bytes (binary units); throws core::UsageError naming
// --max-memory otherwise, or for less than 1 MiB.
uint64_t parse_memory_size(const std::string& text);

// "1.5 GiB", "800 MiB": a size for messages.
std::string format_memory_size(uint64_t bytes);

// A quarter of physical memory, and no more than three quarters of the tightest limit on this process:
// its cgroup's memory limit (cli/cgroup_memory.h) or its address-space limit (`ulimit -v`).
uint64_t default_max_memory();
uint64_t default_max_memory(uint64_t physical, std::optional<uint64_t> process_limit);

// The tightest memory limit on this process (cgroup memory limit or RLIMIT_AS); nullopt without one.
std::optional<uint64_t> process_memory_limit();

// "not enough memory (limit 200 MB)", or "not enough memory" without a limit: the message for bad_alloc.
std::string not_enough_memory_message();

// What batches may take: --max-memory less what the process already holds (the loaded model), and
// under `ulimit -v` no more than three quarters of the address space still free (the rest for the
// allocator, thread stacks and BLAS buffers that come later).
struct MemoryBudget {
  uint64_t max_memory = 0;
  uint64_t resident = 0;                     // resident set now
  uint64_t address_space_left = UINT64_MAX;  // the address-space limit minus the mapped size
  uint64_t usable_address_space() const { return address_space_left / 4 * 3; }
  uint64_t for_batches() const;
};

// The budget of this process now (/proc/self/statm, getrlimit), for `max_memory`.
MemoryBudget current_budget(uint64_t max_memory);

struct BatchFit {
  int batch_size = 0;   // what to use: the requested size, or less to stay within the limit
  std::string warning;  // set when the batch size was reduced
};

// The largest batch size up to `resolved.batch_size` whose worst case (pipeline/batch_memory.h), one
// batch in flight per thread, fits in `budget.for_batches()`. Throws core::UsageError, one line, when
// not even a batch of one sentence fits.
BatchFit fit_batch_to_memory(const pipeline::Translator& translator,
                             const pipeline::TranslateOptions& resolved, const MemoryBudget& budget,
                             int threads);

}  // namespace cli
