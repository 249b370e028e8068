// Entry point of the search, option checks, and the per-step scoring shared by greedy and beam search.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/fast_exp.h"
#include "core/search_internal.h"
#include "core/simd.h"
#include "core/thread_team.h"

namespace core {

void DecoderStep::logit_columns(int, int, int, int, float*) {
  throw std::logic_error("DecoderStep::logit_columns: not offered by this decoder");
}

namespace search_detail {
namespace {

// Largest of n floats (a max is exact in any order, so a vector reduction is fine).
NMT_INLINE float block_max(const float* x, int n) {
  float m = x[0];
#pragma omp simd reduction(max : m)
  for (int i = 1; i < n; ++i) m = m > x[i] ? m : x[i];
  return m;
}

// The same for a whole block, with GCC vector types: the plain loop compiled to scalar maxss and stack
// traffic. The 16 lanes meet in a tree of swaps: a chain of 15 scalar maxima would cost a tenth of the scan.
// On CPUs without 512-bit vectors the compiler splits the type.
NMT_INLINE float full_block_max(const float* x) {
  static_assert(kScanBlock % 16 == 0, "whole vectors per block");
  Vec16 m, v;
  load16(m, x);
  for (int i = 16; i < kScanBlock; i += 16) {
    load16(v, x + i);
    m = m > v ? m : v;
  }
  v = __builtin_shufflevector(m, m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  m = m > v ? m : v;
  v = __builtin_shufflevector(m, m, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
  m = m > v ? m : v;
  v = __builtin_shufflevector(m, m, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  m = m > v ? m : v;
  v = __builtin_shufflevector(m, m, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  m = m > v ? m : v;
  return m[0];
}

}  // namespace

// Each block of kScanBlock logits is read from memory once (its max, then its exps, while it sits in L1),
// and its max is kept for select_top. The sum is taken against the running max and rescaled when the max
// grows (a few times per row). exp in float, sums in double, kScanBlock independent lanes combined in a
// fixed order: the loops vectorise without reordering any sum, so a row's result depends only on the row,
// not on how its columns are cut into calls (each call starts at a block boundary).
NMT_SIMD_CLONES
void add_to_shift(ShiftSum& sum, const float* x, int n, float* block_maxes) {
  double* lane_sum = sum.lane_sum;
  float max = sum.max;
  for (int start = 0, block = 0; start < n; start += kScanBlock, ++block) {
    const float* b = x + start;
    const int len = std::min(kScanBlock, n - start);
    const float m = len == kScanBlock ? full_block_max(b) : block_max(b, len);
    block_maxes[block] = m;
    if (m > max) {
      if (max != kMinusInf) {
        const double rescale = std::exp(static_cast<double>(max) - static_cast<double>(m));
        for (int j = 0; j < kScanBlock; ++j) lane_sum[j] *= rescale;
      }
      max = m;
    }
    if (max == kMinusInf) continue;  // only -inf so far: they add exactly 0
    if (len == kScanBlock) {
#pragma GCC unroll 4  // the block's four vectors in flight at once
      for (int j = 0; j < kScanBlock; ++j) lane_sum[j] += exp_nonpositive(b[j] - max);
    } else {
      for (int j = 0; j < len; ++j) lane_sum[j] += exp_nonpositive(b[j] - max);
    }
  }
  sum.max = max;
}

double ShiftSum::shift() const {
  double sum = 0.0;
  for (double lane : lane_sum) sum += lane;
  return static_cast<double>(max) + std::log(sum);
}

namespace {

// The shift of a stable log_softmax, max + log(sum(exp(x - max))), in one pass over the row.
double log_softmax_shift(const float* row, int n, float* block_maxes) {
  ShiftSum sum;
  add_to_shift(sum, row, n, block_maxes);
  return sum.shift();
}

}  // namespace

bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.cum_logprob > b.cum_logprob || (a.cum_logprob == b.cum_logprob && a.index < b.index);
}

void select_top(const float* logits, const float* block_maxes, const double* shifts,
                const float* cum_logprobs, int n_beams, int vocab_size, int k, std::vector<Candidate>& top) {
  top.clear();
  float worst_kept = 0.0f;  // valid once the heap is full
  const int n_blocks = scan_blocks(vocab_size);
  for (int beam = 0; beam < n_beams; ++beam) {
    const float* row = logits + static_cast<size_t>(beam) * vocab_size;
    const float* maxes = block_maxes + static_cast<size_t>(beam) * n_blocks;
    const float cum_logprob = cum_logprobs[beam];
    const double shift = shifts[beam];
    for (int start = 0, block = 0; start < vocab_size; start += kScanBlock, ++block) {
      const int end = std::min(vocab_size, start + kScanBlock);
      if (static_cast<int>(top.size()) == k && !(cum_logprob + log_prob(maxes[block], shift) > worst_kept))
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

double LogProbs::prepare(float* row, bool force_eos, float* block_maxes, int32_t forced) const {
  if (forced >= 0 && !force_eos) {
    const float logit = row[forced];  // before any ban: a prefix may hold a banned id
    const double shift = prepare(row, false, block_maxes);
    std::fill(row, row + vocab_size_, kMinusInf);
    row[forced] = logit;
    std::fill(block_maxes, block_maxes + scan_blocks(vocab_size_), kMinusInf);
    block_maxes[forced / kScanBlock] = logit;
    return shift;
  }
  if (force_eos) {
    // The distribution is irrelevant: only EOS may follow, with log-probability exactly 0.
    std::fill(row, row + vocab_size_, kMinusInf);
    row[eos_id_] = 0.0f;
    std::fill(block_maxes, block_maxes + scan_blocks(vocab_size_), kMinusInf);
    block_maxes[eos_id_ / kScanBlock] = 0.0f;
    return 0.0;
  }
  // validate() guarantees a non-banned id, so the max stays finite and no NaN appears.
  // Renormalising (log_softmax, ban, log_softmax again) equals banning first, then one log_softmax.
  if (renormalize_) {
    for (int32_t id : banned_) row[id] = kMinusInf;
    return log_softmax_shift(row, vocab_size_, block_maxes);
  }
  // The block maxima still count the banned logits: bounds that are too high only make select_top read a
  // block it could have skipped.
  const double shift = log_softmax_shift(row, vocab_size_, block_maxes);
  for (int32_t id : banned_) row[id] = kMinusInf;  // -inf - shift stays -inf
  return shift;
}

void fetch_group(DecoderStep& decoder, const LogProbs& log_probs, const SearchOptions& options,
                 const std::vector<int>& max_lengths, const std::vector<int>& row_sentence, int first_row,
                 int n_rows, int position, float* logits, double* shifts, float* block_maxes,
                 LoopGuard& guard) {
  decoder.logits(first_row, n_rows, logits);
  const bool guarded = guard.active();
  const int vocab_size = decoder.vocab_size();
  const int n_blocks = scan_blocks(vocab_size);
  const int generated_length = position + 1;  // counting the token chosen now
  split_range(n_rows, 1, [&](int begin, int end, int) {
    for (int r = begin; r < end; ++r) {
      const int sentence = row_sentence[first_row + r];
      float* row = logits + static_cast<size_t>(r) * vocab_size;
      const bool last = generated_length >= max_lengths[sentence];
      const int32_t forced = forced_token(options, sentence, position);
      if (guarded && !last && forced < 0) guard.apply(r, row);
      shifts[r] = log_probs.prepare(row, last, block_maxes + static_cast<size_t>(r) * n_blocks, forced);
    }
  });
}

void LogProbs::apply(float* row, bool force_eos) const {
  std::vector<float> block_maxes(scan_blocks(vocab_size_));
  const double shift = prepare(row, force_eos, block_maxes.data());
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
  require(options.n_best <= options.beam_size || options.sampling.enabled,
          "n_best (" + std::to_string(options.n_best) + ") must not exceed beam_size (" +
              std::to_string(options.beam_size) + ")");
  require(options.eos_id >= 0 && options.eos_id < vocab_size,
          "eos_id " + std::to_string(options.eos_id) + " outside the vocabulary");
  std::vector<char> is_banned(vocab_size, 0);
  for (int32_t id : options.banned) {
    require(id >= 0 && id < vocab_size, "banned id " + std::to_string(id) + " outside the vocabulary");
    is_banned[id] = 1;
  }
  require(std::count(is_banned.begin(), is_banned.end(), 0) > 0, "every token id is banned");
  if (options.sampling.enabled) {
    const SamplingOptions& s = options.sampling;
    require(options.beam_size == 1, "sampling needs beam_size 1");
    require(s.top_k >= 0, "sampling top_k must be >= 0, got " + std::to_string(s.top_k));
    require(s.top_p > 0.0f && s.top_p <= 1.0f, "sampling top_p must be in (0, 1]");
    require(s.temperature > 0.0f && std::isfinite(s.temperature), "sampling temperature must be > 0");
    require(options.sentence_keys.size() == max_lengths.size(),
            "sampling needs one sentence key per sentence");
  }
  require(options.repetition_penalty > 0.0f && std::isfinite(options.repetition_penalty),
          "repetition_penalty must be > 0");
  require(options.no_repeat_ngram_size >= 0,
          "no_repeat_ngram_size must be >= 0, got " + std::to_string(options.no_repeat_ngram_size));
  require(options.prefixes.empty() || options.prefixes.size() == max_lengths.size(),
          "prefixes: one per sentence or none");
  for (const std::vector<int32_t>& prefix : options.prefixes) {
    for (int32_t id : prefix) {
      require(id >= 0 && id < vocab_size && id != options.eos_id,
              "prefix id " + std::to_string(id) + " outside the vocabulary or EOS");
    }
  }
  require(options.constraints.empty() || options.constraints.size() == max_lengths.size(),
          "constraints: one list per sentence or none");
  require(options.constraints.empty() || !options.sampling.enabled, "constraints cannot be sampled");
  for (const std::vector<Constraint>& list : options.constraints) {
    require(list.size() <= static_cast<size_t>(kMaxConstraints),
            "more than " + std::to_string(kMaxConstraints) + " constraints in a sentence");
    for (const Constraint& c : list) {
      require(!c.forms.empty() && c.forms.size() <= static_cast<size_t>(kMaxConstraintForms),
              "a constraint needs 1.." + std::to_string(kMaxConstraintForms) + " forms");
      for (const std::vector<int32_t>& form : c.forms) {
        require(!form.empty(), "a constraint form is empty");
        for (int32_t id : form) {
          require(id >= 0 && id < vocab_size && id != options.eos_id,
                  "constraint id " + std::to_string(id) + " outside the vocabulary or EOS");
        }
      }
    }
  }
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
  const bool constrained = std::any_of(options.constraints.begin(), options.constraints.end(),
                                       [](const std::vector<Constraint>& list) { return !list.empty(); });
  std::vector<std::vector<Hypothesis>> results =
      options.sampling.enabled ? search_detail::sampling_search(decoder, max_lengths, options)
      : constrained            ? search_detail::constrained_search(decoder, max_lengths, options)
      : options.beam_size == 1 ? search_detail::greedy_search(decoder, max_lengths, options)
                               : search_detail::beam_search(decoder, max_lengths, options);
  for (std::vector<Hypothesis>& list : results) {
    list.erase(
        std::remove_if(list.begin(), list.end(), [](const Hypothesis& h) { return !std::isfinite(h.score); }),
        list.end());
    if (list.empty()) {
      Hypothesis none;
      none.score = none.raw_score = -std::numeric_limits<float>::infinity();
      list.push_back(std::move(none));
    }
  }
  return results;
}

}  // namespace core
