// Constrained beam search: dynamic beam allocation (Post & Vilar 2018). Each step a sentence's candidates
// are the best expansions of its beams plus, for every beam, the next token of each constraint it could
// advance; they are grouped into banks by how many constraint tokens they hold, and the beam is filled
// from the banks in turn, highest first, so hypotheses that have met a term and hypotheses that have not
// yet both stay in the beam. A hypothesis may end (EOS) only once it holds one form of every constraint,
// and its end competes with the expansions that hold them all too (a hypothesis still missing a term
// cannot end, so it does not crowd an ending out); at its max length it ends anyway, marked
// constraints_missed. Logits are fetched for groups of whole sentences, as beam search's are.
#include <algorithm>
#include <memory>

#include "core/buffer_pool.h"
#include "core/search_internal.h"

namespace core {
namespace search_detail {
namespace {

// A hypothesis's progress through its sentence's constraints.
struct Progress {
  uint64_t met = 0;    // bit c: constraint c appears in the hypothesis
  int active = -1;     // the constraint whose forms the last `matched` tokens begin, or -1
  int matched = 0;     // tokens of the active constraint generated so far
  uint32_t forms = 0;  // bit f: form f of the active constraint begins with those tokens
  int tokens = 0;      // constraint tokens held: met forms' and the active one's (the bank)
};

// The progress after `token`. A token that breaks the active form may begin another constraint.
Progress advance_progress(const std::vector<Constraint>& constraints, Progress p, int32_t token) {
  if (p.active >= 0) {
    const Constraint& c = constraints[p.active];
    uint32_t still = 0;
    bool done = false;
    for (int f = 0; f < static_cast<int>(c.forms.size()); ++f) {
      if (!(p.forms >> f & 1u) || c.forms[f][p.matched] != token) continue;
      if (static_cast<int>(c.forms[f].size()) == p.matched + 1) done = true;
      still |= 1u << f;
    }
    if (done || still != 0) {
      ++p.matched;
      ++p.tokens;
      p.forms = still;
      if (done) {
        p.met |= uint64_t{1} << p.active;
        p.active = -1;
        p.matched = 0;
        p.forms = 0;
      }
      return p;
    }
    p.tokens -= p.matched;
    p.active = -1;
    p.matched = 0;
    p.forms = 0;
  }
  for (int c = 0; c < static_cast<int>(constraints.size()); ++c) {
    if (p.met >> c & 1u) continue;
    uint32_t begins = 0;
    bool done = false;
    for (int f = 0; f < static_cast<int>(constraints[c].forms.size()); ++f) {
      const std::vector<int32_t>& form = constraints[c].forms[f];
      if (form[0] != token) continue;
      if (form.size() == 1) done = true;
      begins |= 1u << f;
    }
    if (done) {
      p.met |= uint64_t{1} << c;
      ++p.tokens;
      return p;
    }
    if (begins != 0) {
      p.active = c;
      p.matched = 1;
      p.forms = begins;
      ++p.tokens;
      return p;
    }
  }
  return p;
}

bool all_met(const Progress& p, size_t n_constraints) {
  return p.active < 0 && p.met == (n_constraints == 64 ? ~uint64_t{0} : (uint64_t{1} << n_constraints) - 1);
}

struct Row {
  int sentence;
  int node;
  float cum_logprob;
  int32_t token;  // decoder input
  int source_row;
  Progress progress;
};

struct Expansion {
  float cum_logprob;
  int row;  // the sentence's local row
  int32_t token;
  Progress progress;
};

class ConstrainedSearch {
 public:
  ConstrainedSearch(DecoderStep& decoder, const std::vector<int>& max_lengths, const SearchOptions& options)
      : decoder_(decoder),
        max_lengths_(max_lengths),
        options_(options),
        beam_size_(options.beam_size),
        vocab_size_(decoder.vocab_size()),
        log_probs_(vocab_size_, options),
        // A group holds whole sentences, so at least one sentence's beams.
        group_rows_(static_cast<int>(
            std::min<size_t>(max_lengths.size() * beam_size_, std::max(decoder.logit_rows(), beam_size_)))),
        finished_(max_lengths.size()),
        worst_(max_lengths.size(), 1e9),
        guard_(options, group_rows_, max_history(max_lengths)) {
    logits_ = PooledBuffer(static_cast<size_t>(group_rows_) * vocab_size_);
    shifts_.resize(group_rows_);
    block_maxes_.resize(static_cast<size_t>(group_rows_) * scan_blocks(vocab_size_));
    for (int s = 0; s < static_cast<int>(max_lengths.size()); ++s)
      rows_.push_back({s, -1, 0.0f, options.start_id, s, Progress{}});
  }

  std::vector<std::vector<Hypothesis>> run() {
    decoder_.start(static_cast<int>(max_lengths_.size()));
    for (int position = 0; !rows_.empty(); ++position) {
      std::vector<int32_t> tokens;
      std::vector<int> sentences;
      for (const Row& r : rows_) {
        tokens.push_back(r.token);
        sentences.push_back(r.sentence);
      }
      decoder_.step(tokens, sentences, position);
      next_.clear();
      for (int begin = 0, end; begin < static_cast<int>(rows_.size()); begin = end) {
        end = group_end(begin);
        if (guard_.active()) fill_histories(begin, end - begin, position);
        fetch_group(decoder_, log_probs_, options_, max_lengths_, sentences, begin, end - begin, position,
                    logits_.data(), shifts_.data(), block_maxes_.data(), guard_);
        for (int first = begin, last; first < end; first = last) {
          for (last = first; last < end && rows_[last].sentence == rows_[first].sentence;) ++last;
          step_sentence(first, last - first, first - begin, position);
        }
      }
      if (next_.empty()) break;
      std::vector<int> source_rows;
      for (const Row& r : next_) source_rows.push_back(r.source_row);
      decoder_.select_rows(source_rows);
      std::swap(rows_, next_);
    }
    std::vector<std::vector<Hypothesis>> results(max_lengths_.size());
    for (size_t s = 0; s < results.size(); ++s) results[s] = best(finished_[s]);
    return results;
  }

 private:
  const std::vector<Constraint>& constraints_of(int s) const {
    static const std::vector<Constraint> kNone;
    return options_.constraints.empty() ? kNone : options_.constraints[s];
  }

  // The end of the group of rows that begins at row `begin`: whole sentences, at most group_rows_ rows.
  int group_end(int begin) const {
    const int n_rows = static_cast<int>(rows_.size());
    int end = begin;
    while (end < n_rows) {
      int next = end;
      while (next < n_rows && rows_[next].sentence == rows_[end].sentence) ++next;
      if (end > begin && next - begin > group_rows_) break;
      end = next;
    }
    return end;
  }

  // The guard's histories of rows [first, first + n): each has generated `position` tokens.
  void fill_histories(int first, int n, int position) {
    for (int r = 0; r < n; ++r) {
      int32_t* history = guard_.history(r);
      int i = position;
      for (int node = rows_[first + r].node; node >= 0; node = nodes_[node].parent)
        history[--i] = nodes_[node].token;
      guard_.history_length(r) = position;
    }
  }

  // One step of the sentence whose rows are [first, first + n) of rows_, their logits prepared at rows
  // [group_row, group_row + n) of the group's buffers.
  void step_sentence(int first, int n, int group_row, int position) {
    const int s = rows_[first].sentence;
    const std::vector<Constraint>& constraints = constraints_of(s);
    const int generated_length = position + 1;
    const bool last_step = generated_length >= max_lengths_[s];
    const int n_blocks = scan_blocks(vocab_size_);
    float* const logits = logits_.data() + static_cast<size_t>(group_row) * vocab_size_;
    const double* const shifts = shifts_.data() + group_row;
    const float* const block_maxes = block_maxes_.data() + static_cast<size_t>(group_row) * n_blocks;
    // A beam that has not met every constraint may not end yet.
    for (int r = 0; r < n && !last_step; ++r) {
      if (!all_met(rows_[first + r].progress, constraints.size()))
        logits[static_cast<size_t>(r) * vocab_size_ + options_.eos_id] = kMinusInf;
    }
    std::vector<float> cum(n);
    for (int r = 0; r < n; ++r) cum[r] = rows_[first + r].cum_logprob;

    // Candidates: the best 2K expansions, each beam's best, and each beam's constraint tokens.
    std::vector<std::pair<int, int32_t>> picks;  // (local row, token)
    select_top(logits, block_maxes, shifts, cum.data(), n, vocab_size_,
               std::min(2 * beam_size_, n * vocab_size_), top_);
    for (const Candidate& c : top_) picks.emplace_back(c.index / vocab_size_, c.index % vocab_size_);
    for (int r = 0; r < n && !last_step; ++r) {
      const float* row = logits + static_cast<size_t>(r) * vocab_size_;
      select_top(row, block_maxes + static_cast<size_t>(r) * n_blocks, &shifts[r], &cum[r], 1, vocab_size_, 1,
                 top_);
      picks.emplace_back(r, top_[0].index);
      const Progress& p = rows_[first + r].progress;
      if (p.active >= 0) {
        const Constraint& c = constraints[p.active];
        for (int f = 0; f < static_cast<int>(c.forms.size()); ++f)
          if (p.forms >> f & 1u) picks.emplace_back(r, c.forms[f][p.matched]);
      }
      for (int c = 0; c < static_cast<int>(constraints.size()); ++c) {
        if (p.met >> c & 1u) continue;
        for (const std::vector<int32_t>& form : constraints[c].forms) picks.emplace_back(r, form[0]);
      }
    }
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());

    std::vector<Expansion> expansions;
    for (const auto& [r, token] : picks) {
      const float value = cum[r] + log_prob(logits[static_cast<size_t>(r) * vocab_size_ + token], shifts[r]);
      if (value == kMinusInf) continue;  // banned, guarded out, or not the forced EOS
      const Progress& p = rows_[first + r].progress;
      expansions.push_back(
          {value, r, token, token == options_.eos_id ? p : advance_progress(constraints, p, token)});
    }
    std::stable_sort(expansions.begin(), expansions.end(), [](const Expansion& a, const Expansion& b) {
      return a.cum_logprob > b.cum_logprob || (a.cum_logprob == b.cum_logprob && a.row < b.row) ||
             (a.cum_logprob == b.cum_logprob && a.row == b.row && a.token < b.token);
    });

    // Ends: an EOS (with every constraint met, or forced at the max length) among the best K of the
    // expansions that hold every constraint, as beam search's among the best K: the others cannot end yet.
    // Without constraints every expansion holds them all, and this is beam search's rule.
    int complete_rank = 0;
    float best_complete = kMinusInf;  // the best expansion that holds every constraint
    std::vector<const Expansion*> running;
    for (const Expansion& e : expansions) {
      const bool complete = all_met(e.progress, constraints.size());
      if (complete && complete_rank == 0) best_complete = e.cum_logprob;
      if (e.token == options_.eos_id) {
        if (complete_rank < beam_size_) {
          const Row& row = rows_[first + e.row];
          add(s, {row.node, score(e.cum_logprob, generated_length), e.cum_logprob,
                  e.cum_logprob - row.cum_logprob, last_step, !complete});
        }
      } else {
        running.push_back(&e);
      }
      if (complete) ++complete_rank;
    }
    if (running.empty()) return;

    // Dynamic beam allocation: the banks take turns, highest first, each its best remaining expansion.
    int max_bank = 0;
    for (const Expansion* e : running) max_bank = std::max(max_bank, e->progress.tokens);
    std::vector<std::vector<const Expansion*>> banks(max_bank + 1);
    for (const Expansion* e : running) banks[e->progress.tokens].push_back(e);
    std::vector<const Expansion*> kept;
    std::vector<size_t> taken(banks.size(), 0);
    for (bool any = true; any && static_cast<int>(kept.size()) < beam_size_;) {
      any = false;
      for (int b = max_bank; b >= 0 && static_cast<int>(kept.size()) < beam_size_; --b) {
        if (taken[b] >= banks[b].size()) continue;
        kept.push_back(banks[b][taken[b]++]);
        any = true;
      }
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const Expansion* a, const Expansion* b) { return a->cum_logprob > b->cum_logprob; });

    // HF is_done over the hypotheses that hold every constraint, the ones that may end: K of them ended
    // and none of them running can beat the worst now. One still missing a term has not paid for it yet
    // and cannot end before it does: its running score would keep the search going to the length limit.
    bool done =
        static_cast<int>(finished_[s].size()) == beam_size_ &&
        worst_[s] >= score(best_complete, generated_length) &&
        std::none_of(finished_[s].begin(), finished_[s].end(), [](const Finished& f) { return f.missed; });
    for (const Expansion* e : kept) {
      const Row& row = rows_[first + e->row];
      nodes_.push_back({row.node, e->token, e->cum_logprob - row.cum_logprob});
      const Row next{
          s, static_cast<int>(nodes_.size()) - 1, e->cum_logprob, e->token, first + e->row, e->progress};
      if (last_step) {
        add(s, {next.node, score(next.cum_logprob, generated_length + 1), next.cum_logprob, 0.0f, true,
                !all_met(next.progress, constraints.size())});
      } else if (!done) {
        next_.push_back(next);
      }
    }
  }

  // HF BeamHypotheses.add, with a hypothesis that missed a constraint ranked below every one that did not.
  void add(int s, const Finished& f) {
    std::vector<Finished>& list = finished_[s];
    const auto worse = [](const Finished& a, const Finished& b) {
      return a.missed != b.missed ? a.missed : a.score < b.score;
    };
    if (static_cast<int>(list.size()) >= beam_size_) {
      auto worst = std::min_element(list.begin(), list.end(),
                                    [&](const Finished& a, const Finished& b) { return worse(a, b); });
      if (!worse(*worst, f)) return;
      list.erase(worst);
    }
    list.push_back(f);
    double w = 1e9;
    for (const Finished& g : list) w = std::min(w, g.score);
    worst_[s] = w;
  }

  std::vector<Hypothesis> best(std::vector<Finished>& list) const {
    list.erase(
        std::remove_if(list.begin(), list.end(), [](const Finished& f) { return !std::isfinite(f.score); }),
        list.end());
    std::stable_sort(list.begin(), list.end(), [](const Finished& a, const Finished& b) {
      return a.missed != b.missed ? b.missed : a.score > b.score;
    });
    std::vector<Hypothesis> out;
    for (const Finished& f : list) {
      if (static_cast<int>(out.size()) == options_.n_best) break;
      if (f.missed && !out.empty() && !out.front().constraints_missed) break;  // n-best: all met, or none
      out.push_back(trace(nodes_, f));
    }
    return out;
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
  const int group_rows_;  // rows of logits held at once (DecoderStep::logit_rows)
  std::vector<std::vector<Finished>> finished_;
  std::vector<double> worst_;  // of each sentence's finished, once full
  LoopGuard guard_;
  std::vector<Row> rows_, next_;  // this step's beams, sentences in order, and the next step's
  std::vector<TraceNode> nodes_;
  std::vector<Candidate> top_;
  // Of the group being searched, row r of the group first:
  PooledBuffer logits_;             // [group_rows_, vocab]
  std::vector<double> shifts_;      // log_softmax shift of each row
  std::vector<float> block_maxes_;  // and its block maxima (LogProbs::prepare)
};

}  // namespace

std::vector<std::vector<Hypothesis>> constrained_search(DecoderStep& decoder,
                                                        const std::vector<int>& max_lengths,
                                                        const SearchOptions& options) {
  return ConstrainedSearch(decoder, max_lengths, options).run();
}

}  // namespace search_detail
}  // namespace core
