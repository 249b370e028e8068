// Greedy search (beam_size 1): each sentence follows its argmax token until EOS.
#include <utility>

#include "core/search_internal.h"

namespace core {
namespace search_detail {
namespace {

// Index of the largest value; the first one wins ties (same as beam search's stable top-k).
int32_t argmax(const float* row, int n) {
  int32_t best = 0;
  for (int i = 1; i < n; ++i) {
    if (row[i] > row[best]) best = i;
  }
  return best;
}

}  // namespace

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
  std::vector<float> logits(static_cast<size_t>(n_sentences) * vocab_size);
  for (int s = 0; s < n_sentences; ++s) {
    row_sentence[s] = s;
    results[s][0].tokens.reserve(max_lengths[s] - 1);
  }

  decoder.start(n_sentences);
  for (int position = 0; !row_sentence.empty(); ++position) {
    decoder.step(row_token, row_sentence, position, logits.data());
    const int generated_length = position + 1;  // counting the token chosen now
    kept_rows.clear();
    for (int row = 0; row < static_cast<int>(row_sentence.size()); ++row) {
      const int sentence = row_sentence[row];
      float* row_logits = logits.data() + static_cast<size_t>(row) * vocab_size;
      log_probs.apply(row_logits, generated_length >= max_lengths[sentence]);
      const int32_t token = argmax(row_logits, vocab_size);
      row_cum_logprob[row] += row_logits[token];
      Hypothesis& hypothesis = results[sentence][0];
      if (token == options.eos_id) {
        hypothesis.score = static_cast<float>(
            normalized_score(row_cum_logprob[row], generated_length, options.length_penalty));
      } else {
        hypothesis.tokens.push_back(token);
        row_token[row] = token;
        kept_rows.push_back(row);
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
