// Greedy search (beam_size 1): each sentence follows its argmax token until EOS.
#include <algorithm>
#include <memory>

#include "core/buffer_pool.h"
#include "core/output_scan.h"
#include "core/search_internal.h"

namespace core {
namespace search_detail {

std::vector<std::vector<Hypothesis>> greedy_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                   const SearchOptions& options) {
  const int vocab_size = decoder.vocab_size();
  const int n_sentences = static_cast<int>(max_lengths.size());
  const LogProbs log_probs(vocab_size, options);

  // All buffers are sized here; the step loop only shrinks them.
  std::vector<std::vector<Hypothesis>> results(n_sentences, std::vector<Hypothesis>(1));
  std::vector<int> row_sentence(n_sentences);                     // live rows, in sentence order
  std::vector<int32_t> row_token(n_sentences, options.start_id);  // next decoder input
  std::vector<float> row_cum_logprob(n_sentences, 0.0f);
  std::vector<int> kept_rows;
  kept_rows.reserve(n_sentences);
  std::vector<Candidate> best;  // the top-1 of one row
  best.reserve(1);
  const float no_prefix = 0.0f;
  // One group of rows at a time (DecoderStep::logit_rows): logits, shifts and block maxima of that group.
  // With the output layer in one pass (core/output_scan.h) a group is a row whose argmax the scan cannot
  // prove.
  std::unique_ptr<OutputScan> scan;
  if (scans_output(decoder, options, n_sentences))
    scan = std::make_unique<OutputScan>(options, vocab_size, n_sentences, 2);
  const int group_rows = scan ? 1 : std::min(n_sentences, decoder.logit_rows());
  PooledBuffer logits(static_cast<size_t>(group_rows) * vocab_size);
  const int n_blocks = scan_blocks(vocab_size);
  std::vector<double> shifts(group_rows);  // per row, as LogProbs::prepare leaves them
  std::vector<float> block_maxes(static_cast<size_t>(group_rows) * n_blocks);
  LoopGuard guard(options, group_rows, max_history(max_lengths));
  for (int s = 0; s < n_sentences; ++s) {
    row_sentence[s] = s;
    results[s][0].tokens.reserve(max_lengths[s] - 1);
    results[s][0].token_scores.reserve(max_lengths[s]);
  }

  int generated_length = 0;  // of this step, counting the token chosen now
  // Row `row`'s token of this step, `argmax` its best candidate.
  const auto take = [&](int row, const Candidate& argmax) {
    const int sentence = row_sentence[row];
    const int32_t token = argmax.index;
    const float token_log_prob = argmax.cum_logprob;  // no prefix: just its log-probability
    row_cum_logprob[row] += token_log_prob;
    Hypothesis& hypothesis = results[sentence][0];
    hypothesis.token_scores.push_back(token_log_prob);
    if (token == options.eos_id) {
      hypothesis.score = static_cast<float>(
          normalized_score(row_cum_logprob[row], generated_length, options.length_penalty));
      hypothesis.raw_score = row_cum_logprob[row];
      hypothesis.length_limit = generated_length >= max_lengths[sentence];
    } else {
      hypothesis.tokens.push_back(token);
      row_token[row] = token;
      kept_rows.push_back(row);
    }
  };

  decoder.start(n_sentences);
  for (int position = 0; !row_sentence.empty(); ++position) {
    decoder.step(row_token, row_sentence, position);
    generated_length = position + 1;
    const int rows = static_cast<int>(row_sentence.size());
    kept_rows.clear();
    if (scan) {
      for (int row = 0; row < rows; ++row) {
        const int sentence = row_sentence[row];
        scan->rule(row) = OutputScan::rule_at(options, sentence, position, max_lengths[sentence]);
      }
      scan->scan(decoder, rows);
    }
    for (int first = 0; first < rows; first += group_rows) {
      const int n = std::min(group_rows, rows - first);
      if (scan && scan->select(first, 1, &no_prefix, 1, best)) {
        take(first, best[0]);
        continue;
      }
      for (int r = 0; guard.active() && r < n; ++r) {
        const std::vector<int32_t>& tokens = results[row_sentence[first + r]][0].tokens;
        std::copy(tokens.begin(), tokens.end(), guard.history(r));
        guard.history_length(r) = static_cast<int>(tokens.size());
      }
      fetch_group(decoder, log_probs, options, max_lengths, row_sentence, first, n, position, logits.data(),
                  shifts.data(), block_maxes.data(), guard);
      for (int r = 0; r < n; ++r) {
        select_top(logits.data() + static_cast<size_t>(r) * vocab_size,
                   &block_maxes[static_cast<size_t>(r) * n_blocks], &shifts[r], &no_prefix, 1, vocab_size, 1,
                   best);
        take(first + r, best[0]);
      }
    }
    if (kept_rows.empty()) break;
    if (kept_rows.size() == row_sentence.size()) continue;
    // Drop finished sentences so the decoder spends no work on them.
    decoder.select_rows(kept_rows);
    for (size_t i = 0; i < kept_rows.size(); ++i) {
      row_sentence[i] = row_sentence[kept_rows[i]];
      row_token[i] = row_token[kept_rows[i]];
      row_cum_logprob[i] = row_cum_logprob[kept_rows[i]];
    }
    row_sentence.resize(kept_rows.size());
    row_token.resize(kept_rows.size());
    row_cum_logprob.resize(kept_rows.size());
  }
  return results;
}

}  // namespace search_detail
}  // namespace core
