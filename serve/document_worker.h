// A document translated in a child process, one fork per document: whatever the document readers do on a
// hostile file (a crash, an allocation past the memory bound, a loop past the deadline) ends the child, and
// only the request that sent the document fails (500, or 503 past its deadline); the server goes on.
//
// The child is forked from the translator's worker thread while no translation runs, so the translator,
// already loaded, is not in use by any thread; other threads may hold locks at the fork, so the child
// touches nothing they guard (no logging, no model loading, no HTTP state): it translates with the
// translator's memory as the fork left it, allocates (glibc's fork leaves malloc consistent; GCC 12's
// AddressSanitizer allocator does not, so a sanitized server's child can wait on its lock until the
// deadline), starts its own threads for the translator's team, writes its answer to a pipe and leaves with
// _exit (no exit handlers, no stdio flush).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace serve {

// Address space a document's child may take beyond the server's own at the fork (setrlimit(RLIMIT_AS)): a
// zip package's members inflate to 256 MB at most (documents/zip_package.h), an HTML chunk parses into a
// tree some 30 times its size, and the translator's threads need stacks and scratch.
inline constexpr uint64_t kDocumentWorkerMemory = uint64_t{1} << 30;

// work() run in a forked child; its result returned here. What work() throws is this request's error:
// an ApiError keeps its status, core::Error and core::UsageError are 400, std::bad_alloc (the memory bound)
// and anything else 500. A child killed by a signal or ending without an answer is ApiError 500; a child
// still running at `deadline` is killed and the request is ApiError 503.
std::string run_in_worker(const std::function<std::string()>& work,
                          std::chrono::steady_clock::time_point deadline,
                          uint64_t memory_bytes = kDocumentWorkerMemory);

}  // namespace serve
