// What the tests comparing thread and replica splits share: restoring the thread settings, and the texts of
// a call's translations in order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/threads.h"
#include "pipeline/translation.h"

namespace test {

// Restores one thread and core's own sharing rule.
struct ThreadsGuard {
  ~ThreadsGuard() {
    core::force_threads_share_batches(std::nullopt);
    core::set_num_threads(1);
  }
};

// Every hypothesis text of every line, in order.
inline std::vector<std::string> translation_texts(const std::vector<pipeline::Translation>& translations) {
  std::vector<std::string> out;
  for (const auto& t : translations) out.insert(out.end(), t.texts.begin(), t.texts.end());
  return out;
}

}  // namespace test
