#include "core/output_scan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/finite_scan.h"
#include "core/thread_team.h"

namespace core {
namespace search_detail {
namespace {

constexpr int kBlocksPerColumns = DecoderStep::kLogitColumns / kScanBlock;
constexpr int kRowsPerShare = 4;  // even shares matter more than whole 12-row tiles (AVX2: 4, 6)
static_assert(DecoderStep::kLogitColumns % kScanBlock == 0, "column blocks start at scan blocks");

}  // namespace

OutputScan::OutputScan(const SearchOptions& options, int vocab_size, int max_rows, int keep)
    : vocab_size_(vocab_size),
      keep_(keep),
      renormalize_(options.renormalize),
      eos_id_(options.eos_id),
      banned_(options.banned),
      rules_(max_rows, kFree),
      sums_(max_rows),
      shifts_(max_rows),
      non_finite_(max_rows),
      forced_logits_(max_rows),
      counts_(max_rows),
      kept_logits_(static_cast<size_t>(max_rows) * keep),
      kept_ids_(static_cast<size_t>(max_rows) * keep),
      columns_(static_cast<size_t>(max_rows) * DecoderStep::kLogitColumns) {
  std::sort(banned_.begin(), banned_.end());
  banned_.erase(std::unique(banned_.begin(), banned_.end()), banned_.end());
}

void OutputScan::scan(DecoderStep& decoder, int n_rows) {
  for (int r = 0; r < n_rows; ++r) {
    sums_[r] = ShiftSum();
    non_finite_[r] = 0;
    counts_[r] = 0;
  }
  // One share of the rows per thread, as even as 4-row steps allow: a thread streams the
  // weights once for its rows, and the team meets once per step rather than once per block.
  const int parts = std::max(1, std::min(team_size(), (n_rows + kRowsPerShare - 1) / kRowsPerShare));
  const auto share_begin = [&](int part) {
    if (part >= parts) return n_rows;
    const int even = static_cast<int>(static_cast<int64_t>(n_rows) * part / parts);
    return std::min(n_rows, (even + kRowsPerShare - 1) / kRowsPerShare * kRowsPerShare);
  };
  split_range(parts, 1, [&](int begin, int end, int) {
    for (int part = begin; part < end; ++part) {
      const int first_row = share_begin(part), rows = share_begin(part + 1) - first_row;
      if (rows <= 0) continue;
      float* block = columns_.data() + static_cast<size_t>(first_row) * DecoderStep::kLogitColumns;
      for (int first = 0; first < vocab_size_; first += DecoderStep::kLogitColumns) {
        const int n = std::min(DecoderStep::kLogitColumns, vocab_size_ - first);
        decoder.logit_columns(first_row, rows, first, n, block);
        for (int r = 0; r < rows; ++r) scan_row(first_row + r, block + static_cast<size_t>(r) * n, first, n);
      }
    }
  });
  for (int r = 0; r < n_rows; ++r) {
    if (rules_[r] != kForceEos) shifts_[r] = sums_[r].shift();
  }
}

// Row r's logits of ids [first, first + n): the same bans, in the same order relative to the shift, as
// LogProbs::prepare, then the candidates.
void OutputScan::scan_row(int r, float* x, int first, int n) {
  const int32_t rule = rules_[r];
  if (rule == kForceEos) return;
  if (!all_finite_f32(x, static_cast<size_t>(n))) non_finite_[r] = 1;
  if (rule >= first && rule < first + n) forced_logits_[r] = x[rule - first];  // before any ban
  const auto begin = std::lower_bound(banned_.begin(), banned_.end(), first);
  const auto end = std::lower_bound(begin, banned_.end(), first + n);
  if (renormalize_) {
    for (auto id = begin; id != end; ++id) x[*id - first] = kMinusInf;
  }
  float block_maxes[kBlocksPerColumns];
  add_to_shift(sums_[r], x, n, block_maxes);
  if (!renormalize_) {
    // The maxima still count the banned logits: bounds too high only make keep_candidates read a block.
    for (auto id = begin; id != end; ++id) x[*id - first] = kMinusInf;
  }
  if (rule == kFree) keep_candidates(r, x, first, n, block_maxes);
}

// Keeps row r's best keep_ ids by logit (ties: the lower id). Ids come in increasing order, so once the
// list is full an id that merely ties the worst kept ranks after it, and a block whose max does not beat
// the worst kept is skipped unread.
void OutputScan::keep_candidates(int r, const float* x, int first, int n, const float* block_maxes) {
  float* logits = kept_logits_.data() + static_cast<size_t>(r) * keep_;
  int32_t* ids = kept_ids_.data() + static_cast<size_t>(r) * keep_;
  int count = counts_[r];
  for (int start = 0, block = 0; start < n; start += kScanBlock, ++block) {
    if (count == keep_ && !(block_maxes[block] > logits[keep_ - 1])) continue;
    const int end = std::min(n, start + kScanBlock);
    for (int i = start; i < end; ++i) {
      const float value = x[i];
      if (count == keep_ && !(value > logits[keep_ - 1])) continue;
      int at = count == keep_ ? keep_ - 1 : count++;
      for (; at > 0 && logits[at - 1] < value; --at) {
        logits[at] = logits[at - 1];
        ids[at] = ids[at - 1];
      }
      logits[at] = value;
      ids[at] = first + i;
    }
  }
  counts_[r] = count;
}

bool OutputScan::select(int first_row, int n_rows, const float* cum_logprobs, int k,
                        std::vector<Candidate>& top) {
  top.clear();
  for (int beam = 0; beam < n_rows; ++beam) {
    const int r = first_row + beam;
    const float cum_logprob = cum_logprobs[beam];
    const int offset = beam * vocab_size_;
    if (rules_[r] == kForceEos) {
      // Prepared, the row is EOS at 0 and -inf elsewhere with shift 0: its best k are EOS, then the
      // lowest other ids.
      if (!std::isfinite(cum_logprob)) return false;
      top.push_back({cum_logprob + log_prob(0.0f, 0.0), offset + eos_id_});
      for (int token = 0, taken = 1; token < vocab_size_ && taken < k; ++token) {
        if (token == eos_id_) continue;
        top.push_back({cum_logprob + log_prob(kMinusInf, 0.0), offset + token});
        ++taken;
      }
      continue;
    }
    if (non_finite_[r] || !std::isfinite(shifts_[r])) return false;
    if (rules_[r] >= 0) {
      // Prepared, the row is the forced token's logit and -inf elsewhere: with k = 1 it alone counts.
      const float value = cum_logprob + log_prob(forced_logits_[r], shifts_[r]);
      if (k != 1 || !(value > kMinusInf)) return false;
      top.push_back({value, offset + rules_[r]});
      continue;
    }
    // The row's best k by logit are its best k by log-probability when the next one's log-probability is
    // lower (a log-probability never decreases as the logit grows, but rounding can make two equal).
    const int count = counts_[r];
    const float* logits = kept_logits_.data() + static_cast<size_t>(r) * keep_;
    const int32_t* ids = kept_ids_.data() + static_cast<size_t>(r) * keep_;
    if (count <= k && count < vocab_size_) return false;  // too few kept to prove anything
    const int taken = std::min(count, k);
    for (int i = 0; i < taken; ++i)
      top.push_back({cum_logprob + log_prob(logits[i], shifts_[r]), offset + ids[i]});
    if (count > k) {
      const float next = cum_logprob + log_prob(logits[k], shifts_[r]);
      if (!(next < top.back().cum_logprob)) return false;
    }
  }
  const int selected = std::min(k, static_cast<int>(top.size()));
  std::partial_sort(top.begin(), top.begin() + selected, top.end(), ranks_before);
  top.resize(selected);
  return true;
}

}  // namespace search_detail
}  // namespace core
