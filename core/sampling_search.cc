// Sampling search: n_best independent samples per sentence, each drawing its tokens from its own random
// stream (core/sampling.h) until EOS. Step 0 has one row per sentence; its logits seed every sample, then
// each sample is a row of its own.
#include <algorithm>

#include "core/buffer_pool.h"
#include "core/sampling.h"
#include "core/search_internal.h"

namespace core {
namespace search_detail {

std::vector<std::vector<Hypothesis>> sampling_search(DecoderStep& decoder,
                                                     const std::vector<int>& max_lengths,
                                                     const SearchOptions& options) {
  const int vocab_size = decoder.vocab_size();
  const int n_sentences = static_cast<int>(max_lengths.size());
  const int n_samples = options.n_best;
  const int total = n_sentences * n_samples;  // sample q belongs to sentence q / n_samples
  const LogProbs log_probs(vocab_size, options);
  TokenSampler sampler(vocab_size, options.sampling);

  std::vector<Hypothesis> samples(total);
  std::vector<RandomStream> streams;
  streams.reserve(total);
  for (int q = 0; q < total; ++q) {
    streams.push_back(
        sample_stream(options.sampling.seed, options.sentence_keys[q / n_samples], q % n_samples));
    samples[q].tokens.reserve(max_lengths[q / n_samples] - 1);
    samples[q].token_scores.reserve(max_lengths[q / n_samples]);
  }
  std::vector<float> cum_logprob(total, 0.0f);
  // Rows of the current step: row r holds sentence row_sentence[r]; live sample i reads row live_row[i].
  std::vector<int> row_sentence(n_sentences), live(total), live_row(total);
  std::vector<int32_t> row_token(n_sentences, options.start_id);
  row_sentence.reserve(total);
  row_token.reserve(total);
  for (int s = 0; s < n_sentences; ++s) row_sentence[s] = s;
  for (int q = 0; q < total; ++q) {
    live[q] = q;
    live_row[q] = q / n_samples;
  }
  std::vector<int> next_live, next_rows;
  std::vector<int32_t> next_tokens;
  next_live.reserve(total);
  next_rows.reserve(total);
  next_tokens.reserve(total);
  // One group of rows at a time (DecoderStep::logit_rows): logits, shifts and block maxima of that group.
  const int group_rows = std::min(total, decoder.logit_rows());
  PooledBuffer logits(static_cast<size_t>(group_rows) * vocab_size);
  const int n_blocks = scan_blocks(vocab_size);
  std::vector<double> shifts(group_rows);
  std::vector<float> block_maxes(static_cast<size_t>(group_rows) * n_blocks);
  LoopGuard guard(options, group_rows, max_history(max_lengths));

  decoder.start(n_sentences);
  for (int position = 0; !live.empty(); ++position) {
    decoder.step(row_token, row_sentence, position);
    const int generated_length = position + 1;
    const int rows = static_cast<int>(row_sentence.size());
    next_live.clear();
    next_rows.clear();
    next_tokens.clear();
    size_t i = 0;  // live samples read rows in increasing order, so each group's samples are a run
    for (int first = 0; first < rows; first += group_rows) {
      const int n = std::min(group_rows, rows - first);
      // A row's history is its sample's (step 0's rows, shared by a sentence's samples, have none).
      for (size_t j = i; guard.active() && j < live.size() && live_row[j] < first + n; ++j) {
        const std::vector<int32_t>& tokens = samples[live[j]].tokens;
        std::copy(tokens.begin(), tokens.end(), guard.history(live_row[j] - first));
        guard.history_length(live_row[j] - first) = static_cast<int>(tokens.size());
      }
      fetch_group(decoder, log_probs, options, max_lengths, row_sentence, first, n, position, logits.data(),
                  shifts.data(), block_maxes.data(), guard);
      for (; i < live.size() && live_row[i] < first + n; ++i) {
        const int q = live[i], row = live_row[i], r = row - first;
        const float* row_logits = logits.data() + static_cast<size_t>(r) * vocab_size;
        const int32_t token = sampler.draw(row_logits, shifts[r], streams[q]);
        const float token_log_prob = log_prob(row_logits[token], shifts[r]);
        cum_logprob[q] += token_log_prob;
        samples[q].token_scores.push_back(token_log_prob);
        if (token == options.eos_id) {
          samples[q].score =
              static_cast<float>(normalized_score(cum_logprob[q], generated_length, options.length_penalty));
          samples[q].raw_score = cum_logprob[q];
          samples[q].length_limit = generated_length >= max_lengths[q / n_samples];
          continue;
        }
        samples[q].tokens.push_back(token);
        next_live.push_back(q);
        next_rows.push_back(row);
        next_tokens.push_back(token);
      }
    }
    if (next_live.empty()) break;
    bool identity = next_rows.size() == row_sentence.size();
    for (size_t i = 0; identity && i < next_rows.size(); ++i) identity = next_rows[i] == static_cast<int>(i);
    if (!identity) decoder.select_rows(next_rows);
    std::swap(live, next_live);
    row_token.assign(next_tokens.begin(), next_tokens.end());  // within the reserved capacity
    row_sentence.resize(live.size());
    live_row.resize(live.size());
    for (size_t i = 0; i < live.size(); ++i) {
      row_sentence[i] = live[i] / n_samples;
      live_row[i] = static_cast<int>(i);
    }
  }

  std::vector<std::vector<Hypothesis>> results(n_sentences);
  for (int s = 0; s < n_sentences; ++s) {
    auto first = samples.begin() + static_cast<size_t>(s) * n_samples;
    results[s].assign(std::make_move_iterator(first), std::make_move_iterator(first + n_samples));
    std::stable_sort(results[s].begin(), results[s].end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  }
  return results;
}

}  // namespace search_detail
}  // namespace core
