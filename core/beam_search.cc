// Beam search with Hugging Face's rules (BeamSearchScorer / BeamHypotheses, early_stopping=False),
// CTranslate2's (BeamRules::kCTranslate2) or marian-decoder's (BeamRules::kMarian). See docs/search.md for
// the exact semantics this must keep.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/buffer_pool.h"
#include "core/output_scan.h"
#include "core/search_internal.h"

namespace core {
namespace search_detail {
namespace {

// Per-sentence state; its rows are [first_row, first_row + n_rows) of the current batch.
struct SentenceState {
  int first_row = 0;
  int n_rows = 0;
  std::vector<Finished> finished;  // insertion order, at most beam_size (HF BeamHypotheses)
  double worst_score = 1e9;        // HF's initial value; only meaningful once `finished` is full
  bool best_finished = false;      // CTranslate2 rules: a step's best candidate was an EOS
  int marian_width = 0;            // Marian rules: candidates the next step keeps (K less those finished)

  // HF BeamHypotheses.add: keep the best beam_size; when over, drop the worst (earliest on ties).
  void add(const Finished& hypothesis, int beam_size) {
    const int size = static_cast<int>(finished.size());
    if (size >= beam_size && !(hypothesis.score > worst_score)) return;
    finished.push_back(hypothesis);
    if (size + 1 <= beam_size) {
      worst_score = std::min(hypothesis.score, worst_score);
      return;
    }
    auto worst = std::min_element(finished.begin(), finished.end(),
                                  [](const Finished& a, const Finished& b) { return a.score < b.score; });
    finished.erase(worst);
    worst_score =
        std::min_element(finished.begin(), finished.end(), [](const Finished& a, const Finished& b) {
          return a.score < b.score;
        })->score;
  }
};

// Best n_best finished hypotheses, best first, earlier-finished first on ties. Non-finite scores are
// dropped: -inf ones contain a banned or forced-out token (only possible when a beam had no finite
// candidate left), NaN ones come from a model that computes NaN.
std::vector<Hypothesis> best_hypotheses(std::vector<Finished>& finished, const std::vector<TraceNode>& nodes,
                                        int n_best) {
  // NaN scores (a model with non-finite weights) go first: sorting with them is undefined.
  finished.erase(std::remove_if(finished.begin(), finished.end(),
                                [](const Finished& f) { return !std::isfinite(f.score); }),
                 finished.end());
  std::stable_sort(finished.begin(), finished.end(),
                   [](const Finished& a, const Finished& b) { return a.score > b.score; });
  std::vector<Hypothesis> result;
  for (const Finished& f : finished) {
    if (static_cast<int>(result.size()) == n_best) break;
    result.push_back(trace(nodes, f));
  }
  return result;
}

// Rows of the next step, built while walking the current one (swapped in afterwards).
struct Rows {
  std::vector<int> sentence;
  std::vector<int> node;
  std::vector<float> cum_logprob;
  std::vector<int32_t> token;   // decoder input
  std::vector<int> source_row;  // row of the previous step it continues

  void reserve(size_t n) {
    sentence.reserve(n);
    node.reserve(n);
    cum_logprob.reserve(n);
    token.reserve(n);
    source_row.reserve(n);
  }
  void clear() { resize(0); }
  void resize(size_t n) {  // only ever shrinks, so never allocates
    sentence.resize(n);
    node.resize(n);
    cum_logprob.resize(n);
    token.resize(n);
    source_row.resize(n);
  }
};

// The search state of one batch; run() is the whole search.
class BeamSearch {
 public:
  BeamSearch(DecoderStep& decoder, const std::vector<int>& max_lengths, const SearchOptions& options)
      : decoder_(decoder),
        max_lengths_(max_lengths),
        options_(options),
        beam_size_(options.beam_size),
        vocab_size_(decoder.vocab_size()),
        log_probs_(vocab_size_, options),
        scans_(scans_output(decoder, options, static_cast<int>(max_lengths.size()) * beam_size_)),
        // A group holds whole sentences, so at least one sentence's beams; with the one-pass output layer
        // only a sentence whose selection it cannot prove takes this path, so one sentence's beams.
        group_rows_(static_cast<int>(
            std::min<size_t>(max_lengths.size() * beam_size_,
                             scans_ ? beam_size_ : std::max(decoder.logit_rows(), beam_size_)))),
        sentences_(max_lengths.size()) {
    // Everything the step loop touches is sized here, once.
    const int n_sentences = static_cast<int>(max_lengths.size());
    const size_t max_rows = static_cast<size_t>(n_sentences) * beam_size_;
    rows_.reserve(max_rows);
    next_.reserve(max_rows);
    live_.reserve(n_sentences);
    next_live_.reserve(n_sentences);
    size_t max_nodes = 0;
    for (int length : max_lengths) max_nodes += static_cast<size_t>(length) * beam_size_;
    nodes_.reserve(max_nodes);
    top_.reserve(2 * beam_size_);
    if (scans_) {
      scan_ =
          std::make_unique<OutputScan>(options, vocab_size_, static_cast<int>(max_rows), 2 * beam_size_ + 1);
      top_.reserve(static_cast<size_t>(beam_size_) * 2 * beam_size_);
    }
    shifts_.resize(group_rows_);
    block_maxes_.resize(static_cast<size_t>(group_rows_) * scan_blocks(vocab_size_));
    logits_ = PooledBuffer(static_cast<size_t>(group_rows_) * vocab_size_);
    guard_ = std::make_unique<LoopGuard>(options, group_rows_, max_history(max_lengths));

    // One row per sentence to start: with HF's K copies scored [0, -1e9, ...], the first step's top 2K
    // all come from copy 0 anyway (given vocab_size >= 2K), so expanding after the first step is the same.
    for (int s = 0; s < n_sentences; ++s) {
      sentences_[s].first_row = s;
      sentences_[s].n_rows = 1;
      sentences_[s].finished.reserve(2 * beam_size_);
      sentences_[s].marian_width = beam_size_;
      live_.push_back(s);
      rows_.sentence.push_back(s);
      rows_.node.push_back(-1);
      rows_.cum_logprob.push_back(0.0f);
      rows_.token.push_back(options.start_id);
    }
  }

  std::vector<std::vector<Hypothesis>> run() {
    decoder_.start(static_cast<int>(sentences_.size()));
    for (int position = 0; !live_.empty(); ++position) {
      decoder_.step(rows_.token, rows_.sentence, position);
      next_.clear();
      next_live_.clear();
      if (scan_) {
        scan_step(position);
      } else {
        group_step(position);
      }
      std::swap(live_, next_live_);
      if (live_.empty()) break;
      bool identity = next_.source_row.size() == rows_.sentence.size();
      for (size_t i = 0; identity && i < next_.source_row.size(); ++i) {
        identity = next_.source_row[i] == static_cast<int>(i);
      }
      if (!identity) decoder_.select_rows(next_.source_row);
      std::swap(rows_, next_);
    }
    std::vector<std::vector<Hypothesis>> results(sentences_.size());
    for (size_t s = 0; s < sentences_.size(); ++s) {
      results[s] = best_hypotheses(sentences_[s].finished, nodes_, options_.n_best);
    }
    return results;
  }

 private:
  // One step's selections, a group of rows' logits at a time.
  void group_step(int position) {
    // Live sentences' rows are contiguous and in order: a group is a run of whole sentences.
    for (size_t begin = 0, end; begin < live_.size(); begin = end) {
      const int first_row = sentences_[live_[begin]].first_row;
      int end_row = first_row;
      for (end = begin; end < live_.size(); ++end) {
        const int n = sentences_[live_[end]].n_rows;
        if (end > begin && end_row + n - first_row > group_rows_) break;
        end_row += n;
      }
      if (guard_->active()) fill_histories(first_row, end_row - first_row, position);
      fetch_group(decoder_, log_probs_, options_, max_lengths_, rows_.sentence, first_row,
                  end_row - first_row, position, logits_.data(), shifts_.data(), block_maxes_.data(),
                  *guard_);
      for (size_t i = begin; i < end; ++i) {
        if (advance(live_[i], position + 1, first_row)) next_live_.push_back(live_[i]);
      }
    }
  }

  // One step's selections from one pass over the output layer; a sentence whose selection the kept
  // candidates cannot prove takes its rows' logits the two-pass way.
  void scan_step(int position) {
    const int generated_length = position + 1;
    for (int s : live_) {
      const SentenceState& state = sentences_[s];
      const int32_t rule = OutputScan::rule_at(options_, s, position, max_lengths_[s]);
      for (int r = state.first_row; r < state.first_row + state.n_rows; ++r) scan_->rule(r) = rule;
    }
    scan_->scan(decoder_, static_cast<int>(rows_.sentence.size()));
    for (int s : live_) {
      const SentenceState& state = sentences_[s];
      const int k = candidates(s, generated_length);
      if (!scan_->select(state.first_row, state.n_rows, &rows_.cum_logprob[state.first_row], k, top_)) {
        fetch_group(decoder_, log_probs_, options_, max_lengths_, rows_.sentence, state.first_row,
                    state.n_rows, position, logits_.data(), shifts_.data(), block_maxes_.data(), *guard_);
        select_top(logits_.data(), block_maxes_.data(), shifts_.data(), &rows_.cum_logprob[state.first_row],
                   state.n_rows, vocab_size_, k, top_);
      }
      if (extend(s, generated_length, k)) next_live_.push_back(s);
    }
  }

  // The guard's histories of rows [first_row, first_row + n_rows): at step `position` every row has
  // generated `position` tokens, traced back from its last node.
  void fill_histories(int first_row, int n_rows, int position) {
    for (int r = 0; r < n_rows; ++r) {
      int32_t* history = guard_->history(r);
      int i = position;
      for (int node = rows_.node[first_row + r]; node >= 0; node = nodes_[node].parent)
        history[--i] = nodes_[node].token;
      guard_->history_length(r) = position;
    }
  }

  // One step of sentence `s`, whose candidates have `generated_length` tokens (the new one included), its
  // rows prepared in the group starting at row `group_first_row`: finishes EOS candidates, appends its
  // next rows to `next_`. Returns whether it is still searching.
  bool advance(int s, int generated_length, int group_first_row) {
    const SentenceState& state = sentences_[s];
    const int group_row = state.first_row - group_first_row;
    const float* logits = logits_.data() + static_cast<size_t>(group_row) * vocab_size_;
    const size_t first_block = static_cast<size_t>(group_row) * scan_blocks(vocab_size_);
    const int k = candidates(s, generated_length);
    select_top(logits, &block_maxes_[first_block], &shifts_[group_row], &rows_.cum_logprob[state.first_row],
               state.n_rows, vocab_size_, k, top_);
    return extend(s, generated_length, k);
  }

  // Candidates sentence `s` ranks this step. A forced prefix token is its only one (one row continues,
  // like the first step).
  int candidates(int s, int generated_length) const {
    if (forced_step(s, generated_length)) return 1;
    const int wanted =
        options_.beam_rules == BeamRules::kMarian ? sentences_[s].marian_width : 2 * beam_size_;
    return std::min(wanted, sentences_[s].n_rows * vocab_size_);
  }

  bool forced_step(int s, int generated_length) const {
    return generated_length < max_lengths_[s] && forced_token(options_, s, generated_length - 1) >= 0;
  }

  // A new running row of sentence `s` continuing candidate `c`.
  void push_row(int s, const Candidate& c) {
    const int source_row = sentences_[s].first_row + c.index / vocab_size_;
    const int32_t token = c.index % vocab_size_;
    nodes_.push_back({rows_.node[source_row], token, c.cum_logprob - rows_.cum_logprob[source_row]});
    next_.sentence.push_back(s);
    next_.node.push_back(static_cast<int>(nodes_.size()) - 1);
    next_.cum_logprob.push_back(c.cum_logprob);
    next_.token.push_back(token);
    next_.source_row.push_back(source_row);
  }

  // The rest of advance() once top_ holds the sentence's best k candidates.
  bool extend(int s, int generated_length, int k) {
    if (options_.beam_rules == BeamRules::kCTranslate2) return extend_ctranslate2(s, generated_length, k);
    if (options_.beam_rules == BeamRules::kMarian) return extend_marian(s, generated_length, k);
    SentenceState& state = sentences_[s];
    const bool last_step = generated_length >= max_lengths_[s];
    const size_t next_first = next_.sentence.size();
    for (int rank = 0; rank < k; ++rank) {
      const Candidate& c = top_[rank];
      const int source_row = state.first_row + c.index / vocab_size_;
      const int32_t token = c.index % vocab_size_;
      const float token_log_prob = c.cum_logprob - rows_.cum_logprob[source_row];
      if (token == options_.eos_id) {
        // HF ignores an EOS ranked beyond the beam: K running beams are better right now.
        if (rank < beam_size_)
          state.add({rows_.node[source_row], score(c.cum_logprob, generated_length), c.cum_logprob,
                     token_log_prob, last_step},
                    beam_size_);
        continue;
      }
      push_row(s, c);
      if (static_cast<int>(next_.sentence.size() - next_first) == beam_size_) break;
    }

    // HF is_done: this step's best candidate, normalised now, cannot beat the worst kept hypothesis.
    bool done = static_cast<int>(state.finished.size()) == beam_size_ &&
                state.worst_score >= score(top_[0].cum_logprob, generated_length);
    // With vocab_size < 2K every candidate may have been an EOS: nothing left to extend.
    if (next_.sentence.size() == next_first) done = true;
    if (!done && last_step) {
      // HF finalize: running beams compete too, scored as if EOS followed (only -inf ones exist here).
      for (size_t i = next_first; i < next_.sentence.size(); ++i) {
        state.add({next_.node[i], score(next_.cum_logprob[i], generated_length + 1), next_.cum_logprob[i],
                   0.0f, true},
                  beam_size_);
      }
      done = true;
    }
    return keep_rows(state, next_first, done);
  }

  // CTranslate2's BeamSearch::search: the first K of the top 2K are this step's beams. An EOS among them
  // finishes, scored by its length with the EOS (translate_batch keeps the EOS in the hypothesis until
  // the length penalty is applied), and its place goes to the best non-EOS candidate ranked K or below not
  // yet taken. Finished hypotheses are all kept. A sentence is done once K have finished (patience 1), or
  // with length_penalty 0 once its best candidate was an EOS on some step and n_best have finished.
  // CTranslate2's length limit counts no EOS: its last step ends every beam as it is (no EOS, so that
  // length counts none) where ours forces the EOS one step later, so on the step before that no beam
  // comes from below rank K.
  bool extend_ctranslate2(int s, int generated_length, int k) {
    SentenceState& state = sentences_[s];
    const bool last_step = generated_length >= max_lengths_[s];
    const bool before_last = generated_length + 1 >= max_lengths_[s];
    const size_t next_first = next_.sentence.size();
    int replacement = beam_size_;
    for (int rank = 0; rank < std::min(k, beam_size_); ++rank) {
      const Candidate& c = top_[rank];
      if (c.index % vocab_size_ != options_.eos_id) {
        push_row(s, c);
        continue;
      }
      if (rank == 0) state.best_finished = true;
      finish_scored_in_float(state, c, generated_length, last_step);
      for (; !before_last && replacement < k; ++replacement) {
        if (top_[replacement].index % vocab_size_ != options_.eos_id) {
          push_row(s, top_[replacement++]);
          break;
        }
      }
    }
    const int n_finished = static_cast<int>(state.finished.size());
    bool done = last_step || next_.sentence.size() == next_first;
    if (!before_last) {
      done = done || (options_.length_penalty == 0.0f ? state.best_finished && n_finished >= options_.n_best
                                                      : n_finished >= beam_size_);
    }
    return keep_rows(state, next_first, done);
  }

  // marian-decoder's BeamSearch::search: the step's candidates are as many as the sentence's live
  // hypotheses (K on the first step), and all of them are kept: an EOS one finishes, scored by its length
  // with the EOS, and the beam narrows by one for good. The sentence is done when none runs. Marian's
  // length limit ends every hypothesis as it is, scored by its tokens without an EOS; here the limit's
  // step is one later and forces the EOS with log-probability 0, and that EOS is not counted.
  bool extend_marian(int s, int generated_length, int k) {
    SentenceState& state = sentences_[s];
    const bool last_step = generated_length >= max_lengths_[s];
    const size_t next_first = next_.sentence.size();
    for (int rank = 0; rank < k; ++rank) {
      const Candidate& c = top_[rank];
      if (c.index % vocab_size_ != options_.eos_id) {
        push_row(s, c);
        continue;
      }
      finish_scored_in_float(state, c, generated_length, last_step);
    }
    // A forced prefix token is one candidate of one row: the beam keeps its width.
    if (!forced_step(s, generated_length))
      state.marian_width = static_cast<int>(next_.sentence.size() - next_first);
    return keep_rows(state, next_first, last_step || next_.sentence.size() == next_first);
  }

  // Drops a done sentence's new rows from the batch, else makes them its rows. Returns !done.
  bool keep_rows(SentenceState& state, size_t next_first, bool done) {
    if (done) {
      next_.resize(next_first);
      return false;
    }
    state.first_row = static_cast<int>(next_first);
    state.n_rows = static_cast<int>(next_.sentence.size() - next_first);
    return true;
  }

  // EOS candidate `c` of sentence `s` finishes under CTranslate2's or Marian's rules: scored by its length
  // with the EOS, in float as CTranslate2's finalize_hypothesis_score and Marian's History::add compute it.
  // The forced EOS of the last step stands for their limit, whose hypothesis has no EOS: not counted.
  void finish_scored_in_float(SentenceState& state, const Candidate& c, int generated_length,
                              bool last_step) {
    const int source_row = state.first_row + c.index / vocab_size_;
    const int length = last_step ? generated_length - 1 : generated_length;
    const float score = c.cum_logprob / std::pow(static_cast<float>(length), options_.length_penalty);
    state.finished.push_back({rows_.node[source_row], score, c.cum_logprob,
                              c.cum_logprob - rows_.cum_logprob[source_row], last_step});
  }

  double score(float cum_logprob, int length) const {
    return normalized_score(cum_logprob, length, options_.length_penalty);
  }

  DecoderStep& decoder_;
  const std::vector<int>& max_lengths_;
  const SearchOptions& options_;
  const int beam_size_;
  const int vocab_size_;
  const LogProbs log_probs_;
  const bool scans_;      // the output layer in one pass (scans_output)
  const int group_rows_;  // rows of logits held at once (DecoderStep::logit_rows)
  std::vector<SentenceState> sentences_;
  std::vector<int> live_, next_live_;  // sentences still searching, in order
  Rows rows_, next_;                   // this step's rows and the next step's
  std::vector<TraceNode> nodes_;
  std::vector<Candidate> top_;
  // Of the group being searched, row r of the group first:
  std::vector<double> shifts_;      // log_softmax shift of each row
  std::vector<float> block_maxes_;  // and its block maxima (LogProbs::prepare)
  PooledBuffer logits_;             // [group_rows_, vocab], written by the decoder a group at a time
  std::unique_ptr<LoopGuard> guard_;
  std::unique_ptr<OutputScan> scan_;  // the one-pass output layer, when scans_
};

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(DecoderStep& decoder, const std::vector<int>& max_lengths,
                                                 const SearchOptions& options) {
  return BeamSearch(decoder, max_lengths, options).run();
}

}  // namespace search_detail
}  // namespace core
