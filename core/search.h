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
  // Feed one token per row at decoder position `position` (0 = the start token): runs the decoder up to
  // each row's final hidden state, which logits() then projects.
  virtual void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
                    int position) = 0;
  // Next-token logits of rows [first_row, first_row + n_rows) of the last step, [n_rows, vocab_size]
  // row-major into `out`. A row's values must not depend on which other rows share the call: the search
  // asks for a group of rows at a time (at most logit_rows(), or one sentence's beams) and its results may
  // not change.
  virtual void logits(int first_row, int n_rows, float* out) = 0;
  // Rows whose logits the search holds at once: it computes, prepares and searches one group of rows
  // before the next, so its logits buffer is this many rows of vocab_size, whatever the batch.
  virtual int logit_rows() const { return kLogitRows; }

  // The output layer by blocks, offered or not (offers_logit_columns): the logits of rows [first_row,
  // first_row + n_rows) of the last step for vocabulary ids [first, first + n) into `out` [n_rows, n]
  // row-major, `first` a multiple of kLogitColumns, each value bit-identical to what logits() gives. The
  // search then runs the output layer in one pass per step (core/output_scan.h): each of the batch's
  // threads takes a share of the rows and streams the weights once for them, and no buffer of rows x
  // vocab_size exists. Called from the batch's threads at once, for disjoint rows.
  virtual bool offers_logit_columns() const { return false; }
  virtual void logit_columns(int first_row, int n_rows, int first, int n, float* out);
  // Columns per logit_columns call: a multiple of the search's scan blocks and the GEMM panels, few
  // enough that a share of rows x these columns of logits stays in the L2 cache until the search reads it.
  static constexpr int kLogitColumns = 1024;

  // A multiple of the GEMM kernels' row tiles (12 on AVX-512, 6 and 4 on AVX2), large enough that
  // streaming f32 output weights once per group costs little.
  static constexpr int kLogitRows = 48;
};

// A term the output must contain: any one of its forms, each a non-empty sequence of token ids.
struct Constraint {
  std::vector<std::vector<int32_t>> forms;
};
// Limits of one sentence's constraints (bit sets in the search's hypothesis state).
constexpr int kMaxConstraints = 64;      // per sentence
constexpr int kMaxConstraintForms = 32;  // per constraint

// Whose rules beam search follows (docs/search.md): Hugging Face generate's, CTranslate2's or
// marian-decoder's for the models converted from them, so that each decodes as the engine it was made for.
enum class BeamRules { kHuggingFace, kCTranslate2, kMarian };

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
  // Beam search's rules (constrained search keeps Hugging Face's).
  BeamRules beam_rules = BeamRules::kHuggingFace;
  // Loop guards, CTranslate2's (docs/search.md), in every search; applied to a row's logits before
  // log_softmax, using the tokens its hypothesis generated so far (a forced prefix included).
  float repetition_penalty = 1.0f;  // > 1: a generated token's logit is divided by it (multiplied if < 0)
  int no_repeat_ngram_size = 0;     // > 0: a token that would repeat an n-gram of this size is banned
  // Terms each sentence's output must contain (a glossary): empty, or one list per sentence (not with
  // sampling). The search is then dynamic beam allocation (core/constrained_search.cc): a hypothesis ends
  // only once it holds one form of every constraint, or at its max length, marked constraints_missed.
  std::vector<std::vector<Constraint>> constraints;
};

struct Hypothesis {
  std::vector<int32_t> tokens;      // generated ids, EOS excluded
  float score = 0.0f;               // sum_logprobs / len^length_penalty, len = generated tokens incl. EOS
                                    // (BeamRules::kCTranslate2, and kMarian at the length
                                    // limit: excluding it)
  float raw_score = 0.0f;           // sum_logprobs: the unnormalised path score
  std::vector<float> token_scores;  // log-probability of each generated token, EOS's last
  bool length_limit = false;        // ended at its max_length (EOS forced), not by the model's EOS
  bool constraints_missed = false;  // a constraint of SearchOptions::constraints is not in tokens
};

// max_lengths[i]: generated tokens allowed for sentence i, EOS included (EOS is forced on the last one).
// Returns, per sentence, 1 to n_best hypotheses with finite scores, best first; when the model yields no
// finite score for a sentence (NaN or infinite logits), one empty hypothesis with score -infinity.
std::vector<std::vector<Hypothesis>> search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                            const SearchOptions& options);

}  // namespace core
