// Entry point of the search, option checks, and the per-step scoring shared by greedy and beam search.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/search_internal.h"
#include "core/simd.h"

namespace core {
namespace search_detail {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// exp(x) for x <= 0 (or NaN), in float: Cephes expf's range reduction and polynomial (about 1 ulp), written
// without branches, calls or float comparisons so compilers vectorise it. Below -87 (also -inf) it returns
// about 1e-38 instead of 0, which cannot move a sum that contains exp(0) = 1.
inline float exp_nonpositive(float x) {
  // Clamp to -87 on the bits: for x <= 0 a larger magnitude is a larger unsigned pattern (+0 is 0).
  uint32_t x_bits;
  std::memcpy(&x_bits, &x, sizeof x);
  constexpr uint32_t kMinus87Bits = 0xC2AE0000u;
  x_bits = x_bits < kMinus87Bits ? x_bits : kMinus87Bits;
  std::memcpy(&x, &x_bits, sizeof x);
  // n = round(x / ln 2), read from the low mantissa bits after adding 1.5 * 2^23.
  constexpr float kRoundingMagic = 12582912.0f;
  constexpr uint32_t kRoundingMagicBits = 0x4B400000u;
  const float shifted = x * 1.44269504088896341f + kRoundingMagic;
  const float n = shifted - kRoundingMagic;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;  // x - n ln 2, ln 2 in two parts
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float exp_r = p * r * r + r + 1.0f;
  // 2^n from its exponent field; n >= -126 thanks to the clamp.
  uint32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted);
  const uint32_t two_to_n_bits = (shifted_bits - kRoundingMagicBits + 127u) << 23;
  float two_to_n;
  std::memcpy(&two_to_n, &two_to_n_bits, sizeof two_to_n);
  return exp_r * two_to_n;
}

// The shift of a stable log_softmax: max + log(sum(exp(x - max))), exp in float, sum in double. Blocks of
// kLanes independent accumulators (combined in a fixed order) let compilers vectorise without reordering
// any sum, so a row's result depends only on the row.
NMT_SIMD_CLONES
double log_softmax_shift(const float* row, int n) {
  constexpr int kLanes = 64;
  const int n_blocked = n - n % kLanes;
  float lane_max[kLanes];
  std::fill(lane_max, lane_max + kLanes, kMinusInf);
  for (int i = 0; i < n_blocked; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lane_max[j] = lane_max[j] > row[i + j] ? lane_max[j] : row[i + j];
  }
  float max = *std::max_element(lane_max, lane_max + kLanes);
  for (int i = n_blocked; i < n; ++i) max = std::max(max, row[i]);

  double lane_sum[kLanes] = {};
  for (int i = 0; i < n_blocked; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lane_sum[j] += exp_nonpositive(row[i + j] - max);
  }
  double sum = 0.0;
  for (double lane : lane_sum) sum += lane;
  for (int i = n_blocked; i < n; ++i) sum += exp_nonpositive(row[i] - max);
  return static_cast<double>(max) + std::log(sum);
}

// Tokens are scanned in blocks; a block is skipped when even its largest logit cannot pass the bar.
// Exact, because offset + log_prob(x, shift) never decreases as x grows.
constexpr int kScanBlock = 64;
inline float block_max(const float* x, int n) {
  float m = x[0];
#pragma omp simd reduction(max : m)
  for (int i = 1; i < n; ++i) m = m > x[i] ? m : x[i];
  return m;
}

}  // namespace

bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.cum_logprob > b.cum_logprob || (a.cum_logprob == b.cum_logprob && a.index < b.index);
}

void select_top(const float* logits, const double* shifts, const float* cum_logprobs, int n_beams,
                int vocab_size, int k, std::vector<Candidate>& top) {
  top.clear();
  float worst_kept = 0.0f;  // valid once the heap is full
  for (int beam = 0; beam < n_beams; ++beam) {
    const float* row = logits + static_cast<size_t>(beam) * vocab_size;
    const float cum_logprob = cum_logprobs[beam];
    const double shift = shifts[beam];
    for (int start = 0; start < vocab_size; start += kScanBlock) {
      const int end = std::min(vocab_size, start + kScanBlock);
      if (static_cast<int>(top.size()) == k &&
          !(cum_logprob + log_prob(block_max(row + start, end - start), shift) > worst_kept))
        continue;
      for (int token = start; token < end; ++token) {
        const float value = cum_logprob + log_prob(row[token], shift);
        if (static_cast<int>(top.size()) < k) {
          top.push_back({value, beam * vocab_size + token});
          std::push_heap(top.begin(), top.end(), ranks_before);
          worst_kept = top.front().cum_logprob;
        } else if (value > worst_kept) {
          std::pop_heap(top.begin(), top.end(), ranks_before);
          top.back() = {value, beam * vocab_size + token};
          std::push_heap(top.begin(), top.end(), ranks_before);
          worst_kept = top.front().cum_logprob;
        }
      }
    }
  }
  std::sort_heap(top.begin(), top.end(), ranks_before);
}

LogProbs::LogProbs(int vocab_size, const SearchOptions& options)
    : vocab_size_(vocab_size),
      eos_id_(options.eos_id),
      renormalize_(options.renormalize),
      banned_(options.banned) {
  std::sort(banned_.begin(), banned_.end());
  banned_.erase(std::unique(banned_.begin(), banned_.end()), banned_.end());
}

double LogProbs::prepare(float* row, bool force_eos) const {
  if (force_eos) {
    // The distribution is irrelevant: only EOS may follow, with log-probability exactly 0.
    std::fill(row, row + vocab_size_, kMinusInf);
    row[eos_id_] = 0.0f;
    return 0.0;
  }
  // validate() guarantees a non-banned id, so the max stays finite and no NaN appears.
  // Renormalising (log_softmax, ban, log_softmax again) equals banning first, then one log_softmax.
  if (renormalize_) {
    for (int32_t id : banned_) row[id] = kMinusInf;
    return log_softmax_shift(row, vocab_size_);
  }
  const double shift = log_softmax_shift(row, vocab_size_);
  for (int32_t id : banned_) row[id] = kMinusInf;  // -inf - shift stays -inf
  return shift;
}

void LogProbs::apply(float* row, bool force_eos) const {
  const double shift = prepare(row, force_eos);
  for (int i = 0; i < vocab_size_; ++i) row[i] = log_prob(row[i], shift);
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("search: " + what);
}

void validate(int vocab_size, const std::vector<int>& max_lengths, const SearchOptions& options) {
  require(vocab_size >= 1, "vocab_size must be >= 1, got " + std::to_string(vocab_size));
  require(options.beam_size >= 1, "beam_size must be >= 1, got " + std::to_string(options.beam_size));
  require(options.n_best >= 1, "n_best must be >= 1, got " + std::to_string(options.n_best));
  require(options.n_best <= options.beam_size, "n_best (" + std::to_string(options.n_best) +
                                                   ") must not exceed beam_size (" +
                                                   std::to_string(options.beam_size) + ")");
  require(options.eos_id >= 0 && options.eos_id < vocab_size,
          "eos_id " + std::to_string(options.eos_id) + " outside the vocabulary");
  std::vector<char> is_banned(vocab_size, 0);
  for (int32_t id : options.banned) {
    require(id >= 0 && id < vocab_size, "banned id " + std::to_string(id) + " outside the vocabulary");
    is_banned[id] = 1;
  }
  require(std::count(is_banned.begin(), is_banned.end(), 0) > 0, "every token id is banned");
  for (size_t i = 0; i < max_lengths.size(); ++i) {
    require(max_lengths[i] >= 1,
            "max_lengths[" + std::to_string(i) + "] must be >= 1, got " + std::to_string(max_lengths[i]));
  }
}

}  // namespace
}  // namespace search_detail

std::vector<std::vector<Hypothesis>> search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                            const SearchOptions& options) {
  search_detail::validate(decoder.vocab_size(), max_lengths, options);
  if (max_lengths.empty()) return {};
  if (options.beam_size == 1) return search_detail::greedy_search(decoder, max_lengths, options);
  return search_detail::beam_search(decoder, max_lengths, options);
}

}  // namespace core
