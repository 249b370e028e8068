// How far a Translator::translate() call has come, for a progress display on another thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace pipeline {

// translate() sets total_tokens once its lines are split; each batch adds what it translated when it
// ends, from the thread that ran it. Relaxed atomics: a display needs no ordering, and a batch pays one
// add per counter.
struct TranslateProgress {
  std::atomic<std::uint64_t> total_tokens{0};    // source tokens of the call's sentences
  std::atomic<std::uint64_t> done_tokens{0};     // ... of its sentences translated so far
  std::atomic<std::uint64_t> done_sentences{0};  // sentences (segments) translated so far

  void reset() {
    total_tokens.store(0, std::memory_order_relaxed);
    done_tokens.store(0, std::memory_order_relaxed);
    done_sentences.store(0, std::memory_order_relaxed);
  }
};

}  // namespace pipeline
