#include "serve/model_cache.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "front/translate_flags.h"

namespace serve {

namespace {

// What a model takes in memory, near enough: its files (weights, vocabularies, shortlist).
uint64_t directory_bytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code size_error;
    const uintmax_t size = std::filesystem::file_size(entry.path(), size_error);
    if (!size_error) bytes += size;
  }
  return bytes;
}

std::string megabytes(uint64_t bytes) { return std::to_string((bytes + (1 << 19)) >> 20) + " MB"; }

}  // namespace

class ModelCache::Lease {
 public:
  Lease(ModelCache& cache, std::vector<std::string> dirs, std::shared_ptr<const pipeline::Translator> t)
      : cache_(cache), dirs_(std::move(dirs)), translator_(std::move(t)) {}
  ~Lease() { cache_.release(dirs_); }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

 private:
  ModelCache& cache_;
  std::vector<std::string> dirs_;
  std::shared_ptr<const pipeline::Translator> translator_;  // outlives an unload of its slot
};

ModelCache::Loaded ModelCache::use(size_t slot, const front::ModelRoute& route) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& s = slots_[slot];
  if (!s.translator) {
    std::vector<std::string> dirs;
    for (const models::StoredModel& leg : route.legs) dirs.push_back(leg.dir.string());
    const front::ModelLoader load = [this](const std::string& dir) { return resident(dir); };
    s.translator = front::load_route(route, front::TranslateFlags{}, load);
    s.options = front::resolve_translate_flags(front::TranslateFlags{}, *s.translator);
    s.dirs = std::move(dirs);
  }
  ++clock_;
  for (const std::string& dir : s.dirs) {
    Resident& r = residents_.at(dir);
    ++r.in_use;
    r.last_used = clock_;
  }
  Loaded loaded{s.translator.get(), s.options, std::make_shared<Lease>(*this, s.dirs, s.translator)};
  unload_over_budget();
  return loaded;
}

std::shared_ptr<const pipeline::Translator> ModelCache::resident(const std::string& dir) {
  auto found = residents_.find(dir);
  if (found != residents_.end()) return found->second.translator;
  Resident r;
  r.translator = std::make_shared<const pipeline::Translator>(dir);
  r.bytes = directory_bytes(dir);
  r.last_used = clock_;
  std::cerr << "nmt serve: loaded " << dir << " (" << megabytes(r.bytes) << ")" << std::endl;
  return residents_.emplace(dir, std::move(r)).first->second.translator;
}

void ModelCache::unload_over_budget() {
  for (;;) {
    uint64_t total = 0;
    for (const auto& [dir, r] : residents_) total += r.bytes;
    if (total <= budget_) return;
    auto oldest = residents_.end();
    for (auto it = residents_.begin(); it != residents_.end(); ++it) {
      if (it->second.in_use == 0 &&
          (oldest == residents_.end() || it->second.last_used < oldest->second.last_used))
        oldest = it;
    }
    if (oldest == residents_.end()) return;  // every loaded model is in use: over the budget until released
    const std::string dir = oldest->first;
    for (auto& [index, s] : slots_) {  // the pairs through it load it again when asked
      if (std::find(s.dirs.begin(), s.dirs.end(), dir) != s.dirs.end()) s = Slot();
    }
    std::cerr << "nmt serve: unloaded " << dir << " (least recently used; " << megabytes(total)
              << " loaded, over --max-models-memory " << megabytes(budget_) << ")" << std::endl;
    residents_.erase(oldest);
  }
}

void ModelCache::release(const std::vector<std::string>& dirs) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& dir : dirs) {
    auto found = residents_.find(dir);
    if (found != residents_.end()) --found->second.in_use;
  }
  unload_over_budget();  // what a request held past the budget goes when it is let go
}

uint64_t ModelCache::loaded_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t total = 0;
  for (const auto& [dir, r] : residents_) total += r.bytes;
  return total;
}

}  // namespace serve
