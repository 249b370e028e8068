#include "models/shortlist_builder.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"

namespace models {

namespace {

// The sentence's distinct ids below `vocab`, sorted.
std::vector<int32_t> distinct(const std::vector<int32_t>& ids, int vocab) {
  std::vector<int32_t> out;
  for (int32_t id : ids) {
    if (id >= 0 && id < vocab) out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Shortlist build_shortlist(const std::vector<std::vector<int32_t>>& sources,
                          const std::vector<std::vector<int32_t>>& targets, int src_vocab, int tgt_vocab,
                          const ShortlistBuildOptions& options) {
  if (sources.size() != targets.size()) throw core::Error("build_shortlist: as many targets as sources");
  std::vector<std::unordered_map<int32_t, int32_t>> pair_count(static_cast<size_t>(src_vocab));
  std::vector<int64_t> src_count(static_cast<size_t>(src_vocab), 0),
      tgt_count(static_cast<size_t>(tgt_vocab), 0);
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::vector<int32_t> s_ids = distinct(sources[i], src_vocab),
                               t_ids = distinct(targets[i], tgt_vocab);
    for (int32_t t : t_ids) ++tgt_count[t];
    for (int32_t s : s_ids) {
      ++src_count[s];
      for (int32_t t : t_ids) ++pair_count[s][t];
    }
  }
  std::vector<std::vector<int32_t>> lists(static_cast<size_t>(src_vocab));
  std::vector<std::pair<double, int32_t>> ranked;
  for (int32_t s = 0; s < src_vocab; ++s) {
    ranked.clear();
    for (const auto& [t, both] : pair_count[s]) {
      const double score = options.score == ShortlistScore::kDice
                               ? 2.0 * both / static_cast<double>(src_count[s] + tgt_count[t])
                               : both / static_cast<double>(src_count[s]);
      ranked.emplace_back(-score, t);  // best first, then the lowest id
    }
    const size_t keep = std::min(ranked.size(), static_cast<size_t>(options.k));
    std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end());
    for (size_t j = 0; j < keep; ++j) lists[s].push_back(ranked[j].second);
    std::sort(lists[s].begin(), lists[s].end());
  }
  std::vector<int32_t> by_count(static_cast<size_t>(tgt_vocab));
  for (int32_t t = 0; t < tgt_vocab; ++t) by_count[t] = t;
  const size_t n_frequent = std::min(by_count.size(), static_cast<size_t>(std::max(options.n_frequent, 0)));
  std::stable_sort(by_count.begin(), by_count.end(),
                   [&](int32_t a, int32_t b) { return tgt_count[a] > tgt_count[b]; });
  std::vector<int32_t> frequent(by_count.begin(), by_count.begin() + n_frequent);
  std::sort(frequent.begin(), frequent.end());
  return Shortlist(src_vocab, tgt_vocab, options.k, std::move(frequent), lists);
}

}  // namespace models
