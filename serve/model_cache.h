// Installed models for `nmt serve`: each loaded on the first request of a pair that needs it, and the
// least recently used unloaded when the loaded ones pass the memory budget (--max-models-memory). A model a
// request holds is never unloaded; when the request lets it go, it goes if the budget is still passed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "front/model_catalog.h"
#include "pipeline/translator.h"

namespace serve {

class ModelCache {
 public:
  explicit ModelCache(uint64_t budget_bytes) : budget_(budget_bytes) {}

  struct Loaded {
    const pipeline::Translator* translator = nullptr;
    pipeline::TranslateOptions options;  // as `nmt translate --from --to` without flags
    std::shared_ptr<const void> lease;   // the models stay loaded while a copy lives
  };
  // Pair `slot`'s translator for `route` (both legs through a pivot), loading the models it lacks, then
  // unloading the least recently used models no request holds while over the budget. Throws what loading
  // throws (models::ModelError, core::Error).
  Loaded use(size_t slot, const front::ModelRoute& route);

  // Bytes of the models loaded now (their files' sizes).
  uint64_t loaded_bytes() const;

 private:
  struct Resident {
    std::shared_ptr<const pipeline::Translator> translator;
    uint64_t bytes = 0;
    uint64_t last_used = 0;
    int in_use = 0;  // leases out
  };
  struct Slot {
    std::shared_ptr<const pipeline::Translator> translator;
    pipeline::TranslateOptions options;
    std::vector<std::string> dirs;
  };
  class Lease;

  std::shared_ptr<const pipeline::Translator> resident(const std::string& dir);
  void unload_over_budget();
  void release(const std::vector<std::string>& dirs);

  const uint64_t budget_;
  mutable std::mutex mutex_;
  std::map<std::string, Resident> residents_;  // by directory
  std::map<size_t, Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace serve
