// Greedy and beam search over an abstract decoder step. Core knows no model and no text:
// a DecoderStep produces next-token logits for a set of rows, each row one (sentence, beam) hypothesis.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sampling.h"

namespace core {

// The model side of decoding. Rows are hypotheses; the search owns which rows exist.
class DecoderStep {
 public:
  virtual ~DecoderStep() = default;
  virtual int vocab_size() const = 0;
  // Start decoding: one row per sentence, row i belongs to sentence i.
  // (Implementations reset their caches here.)
  virtual void start(int n_sentences) = 0;
  // Keep only some rows, in a new order: new row i continues old row `src_rows[i]` (a row may be
  // copied several times, e.g. to expand beams; dropped rows are gone). Called before `step`.
  virtual void select_rows(const std::vector<int>& src_rows) = 0;
  // Row r's sentence is `sentence_of_row[r]` (index into the batch given to start()).
  // Feed one token per row at decoder position `position` (0 = the start token), write logits
  // [n_rows, vocab_size] into `logits` (row-major).
  virtual void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row, int position,
                    float* logits) = 0;
};

struct SearchOptions {
  int beam_size = 1;            // 1 = greedy
  int n_best = 1;               // hypotheses returned per sentence (<= beam_size)
  float length_penalty = 1.0f;  // finished score = sum_logprobs / len^length_penalty
  bool renormalize = true;      // log_softmax again after banning ids
  int32_t eos_id = 0;
  int32_t start_id = 0;         // decoder start token (fed at position 0)
  std::vector<int32_t> banned;  // never generated (pad, decoder start, maybe unk)
  // Forced target prefixes: empty, or one per sentence. Sentence i's first prefixes[i].size() generated
  // tokens are those ids (their log-probabilities count in the score); the search continues after them.
  std::vector<std::vector<int32_t>> prefixes;
  // Sampling instead of the argmax (beam_size must be 1; n_best = independent samples per sentence).
  SamplingOptions sampling;
  // With sampling: one key per sentence (its place in the input), mixed with the seed into its streams.
  std::vector<uint64_t> sentence_keys;
};

struct Hypothesis {
  std::vector<int32_t> tokens;  // generated ids, EOS excluded
  float score = 0.0f;           // sum_logprobs / len^length_penalty, len = generated tokens incl. EOS
};

// max_lengths[i]: generated tokens allowed for sentence i, EOS included (EOS is forced on the last one).
// Returns, per sentence, 1 to n_best hypotheses with finite scores, best first; when the model yields no
// finite score for a sentence (NaN or infinite logits), one empty hypothesis with score -infinity.
std::vector<std::vector<Hypothesis>> search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                            const SearchOptions& options);

}  // namespace core
