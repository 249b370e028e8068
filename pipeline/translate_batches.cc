// Translator's batch step: sentences' source ids, sorted by length and cut into batches fitted to memory,
// searched on the model; lines of another beam size run apart.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <numeric>

#include "core/error.h"
#include "core/thread_team.h"
#include "core/threads.h"
#include "models/decoder_state.h"
#include "models/shortlist_step.h"
#include "pipeline/batch_plan.h"
#include "pipeline/translator.h"

namespace pipeline {

namespace {

// Each hypothesis's recorded attention, into `out` at the sentences' input positions.
void collect_attention(const models::DecoderState& state, const models::EncodedBatch& encoded,
                       const std::vector<std::vector<core::Hypothesis>>& hyps,
                       const std::vector<size_t>& order, size_t begin,
                       std::vector<std::vector<models::AttentionMatrices>>& out) {
  for (size_t i = 0; i < hyps.size(); ++i) {
    std::vector<models::AttentionMatrices>& sentence = out[order[begin + i]];
    for (const core::Hypothesis& h : hyps[i]) {
      sentence.push_back(state.attention(static_cast<int>(i), h.tokens));
      if (!encoded.attention.empty()) sentence.back().encoder = encoded.attention[i];
    }
  }
}

// The batch's shortlist vocabulary: every source's pieces' targets, the frequent pieces, the special
// tokens, the forced prefixes' and the glossary terms' ids.
std::vector<int32_t> batch_vocabulary(const models::Shortlist& shortlist, const models::ModelDescription& d,
                                      const std::vector<std::vector<int32_t>>& batch,
                                      const core::SearchOptions& search) {
  std::vector<int32_t> always = {d.tokens.pad, d.tokens.unk, d.tokens.eos, d.tokens.decoder_start};
  for (const auto& prefix : search.prefixes) always.insert(always.end(), prefix.begin(), prefix.end());
  for (const auto& list : search.constraints) {
    for (const core::Constraint& c : list) {
      for (const auto& form : c.forms) always.insert(always.end(), form.begin(), form.end());
    }
  }
  return shortlist.vocabulary(batch, always);
}

// `replicas` threads, each the caller of a team of `per_replica`, take the batches in order (longest first)
// from one counter until none is left: a team waits for its slowest member at every product (on a shared
// machine, for one the scheduler took away), replicas only at the end. Each batch runs on one team, so its
// arithmetic is the same whichever replica takes it. The first exception stops the others taking more.
void run_replicas(int replicas, int per_replica, int n_batches,
                  const std::function<void(int)>& translate_batch) {
  std::atomic<int> next{0};
  const auto replica = [&](int) {
    core::ThreadsOnThisThread threads(per_replica);
    core::ThreadTeam team(per_replica);
    for (int task; (task = next.fetch_add(1)) < n_batches;) {
      try {
        translate_batch(task);
      } catch (...) {
        next.store(n_batches);
        throw;
      }
    }
  };
  if (replicas <= 1) return replica(0);
  core::ThreadsOnThisThread all(replicas);
  core::parallel_for(replicas, replica);
}

}  // namespace

const models::Shortlist* Translator::shortlist(const TranslateOptions& o) const {
  if (o.shortlist == "off") return nullptr;
  const std::string path = model_dir_ + "/" + models::Shortlist::kFileName;
  std::lock_guard<std::mutex> lock(shortlist_mutex_);
  if (shortlist_) return shortlist_.get();
  struct stat st;
  if (o.shortlist == "auto" && ::stat(path.c_str(), &st) != 0) return nullptr;
  const models::ModelConfig& c = model_->config();
  shortlist_ =
      std::make_unique<models::Shortlist>(models::Shortlist::read(path, c.src_vocab_size, c.tgt_vocab_size));
  return shortlist_.get();
}

std::vector<std::vector<core::Hypothesis>> Translator::translate_ids(
    const std::vector<std::vector<int32_t>>& sources, const TranslateOptions& o,
    const SourceControls& controls, const models::AttentionRequest* capture,
    std::vector<std::vector<models::AttentionMatrices>>* attention) const {
  check(o);
  const models::ModelDescription& d = model_->description();
  if (!controls.sampling_keys.empty() && controls.sampling_keys.size() != sources.size())
    throw core::Error("translate_ids: one sampling key per source");
  if (!controls.prefixes.empty() && controls.prefixes.size() != sources.size())
    throw core::Error("translate_ids: one prefix per source");
  if (!controls.constraints.empty() && controls.constraints.size() != sources.size())
    throw core::Error("translate_ids: one constraint list per source");
  const bool constrained = std::any_of(controls.constraints.begin(), controls.constraints.end(),
                                       [](const auto& list) { return !list.empty(); });
  core::SearchOptions search;
  search.beam_size = o.beam_size;
  search.n_best = o.n_best;
  search.beam_rules = d.decoding.beam_rules;
  search.length_penalty = o.length_penalty;
  search.renormalize = d.decoding.renormalize;
  search.eos_id = d.tokens.eos;
  search.start_id = d.tokens.decoder_start;
  search.banned = {d.tokens.pad};
  if (d.tokens.decoder_start != d.tokens.eos && d.tokens.decoder_start != d.tokens.pad) {
    search.banned.push_back(d.tokens.decoder_start);
  }
  if (d.decoding.ban_unk) search.banned.push_back(d.tokens.unk);
  search.sampling = o.sampling;
  search.repetition_penalty = o.repetition_penalty;
  search.no_repeat_ngram_size = o.no_repeat_ngram_size;
  const int rows_per_sentence = o.sampling.enabled ? o.n_best : o.beam_size;  // beams, or samples
  const models::Shortlist* shortlist = this->shortlist(o);

  // Sort by length so each batch holds similar lengths; results go back to input order.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<std::vector<core::Hypothesis>> results(sources.size());
  if (capture && attention) attention->assign(sources.size(), {});
  // Every thread the caller gave: num_threads() for each of the replicas. Fewer batches than replicas give
  // each replica more threads, so a lone sentence still has them all.
  const int budget = core::num_threads() * o.replicas;
  bool within;
  {
    core::ThreadsOnThisThread all(budget);
    within = core::threads_share_batches(model_->config().d_model);
  }
  std::vector<size_t> bounds;  // batch b is [bounds[b], bounds[b + 1]) of `order`
  if (o.max_batch_tokens > 0) {
    std::vector<size_t> lengths;
    for (size_t i : order) lengths.push_back(sources[i].size());
    bounds = token_batch_bounds(lengths, static_cast<size_t>(o.max_batch_tokens));
  } else {
    bounds = sentence_batch_bounds(order.size(), o.batch_size, within ? 1 : budget);
  }
  const int n_batches = static_cast<int>(bounds.size()) - 1;
  const auto translate_batch = [&](int task) {
    const int b = n_batches - 1 - task;
    std::vector<std::vector<int32_t>> batch;
    std::vector<int> max_lengths;
    core::SearchOptions batch_search = search;
    for (size_t i = bounds[b]; i < bounds[b + 1]; ++i) {
      const size_t source = order[i];
      batch.push_back(sources[source]);
      int max_length = max_output_length(static_cast<int>(batch.back().size()), o);
      if (!controls.prefixes.empty()) {
        // A prefix always fits (prefix_ids), with room for one more token.
        const int forced = static_cast<int>(controls.prefixes[source].size());
        max_length = std::max(max_length, std::min(forced + 1, model_->config().max_positions));
        batch_search.prefixes.push_back(controls.prefixes[source]);
      }
      if (constrained) {
        // Room for every term's longest form, and the end.
        int term_tokens = 1;
        for (const core::Constraint& c : controls.constraints[source]) {
          size_t longest = 0;
          for (const auto& form : c.forms) longest = std::max(longest, form.size());
          term_tokens += static_cast<int>(longest);
        }
        max_length = std::max(max_length, std::min(term_tokens, model_->config().max_positions));
        batch_search.constraints.push_back(controls.constraints[source]);
      }
      max_lengths.push_back(max_length);
      if (o.sampling.enabled)
        batch_search.sentence_keys.push_back(controls.sampling_keys.empty() ? source
                                                                            : controls.sampling_keys[source]);
    }
    const models::EncodedBatch encoded = model_->encode(batch, capture && capture->encoder);
    const int max_steps = *std::max_element(max_lengths.begin(), max_lengths.end());
    const int max_rows = static_cast<int>(batch.size()) * rows_per_sentence;
    models::DecoderState state(*model_, encoded, max_rows, max_steps, capture);
    std::vector<std::vector<core::Hypothesis>> hyps;
    if (shortlist) {
      const models::ShortlistOutput output(model_->weights().output,
                                           batch_vocabulary(*shortlist, d, batch, batch_search));
      models::ShortlistStep step(state, output, max_rows);
      hyps = core::search(step, max_lengths, models::shortlist_search_options(batch_search, output));
      models::expand_tokens(output, hyps);
    } else {
      hyps = core::search(state, max_lengths, batch_search);
    }
    if (capture && attention) collect_attention(state, encoded, hyps, order, bounds[b], *attention);
    for (size_t i = bounds[b]; i < bounds[b + 1]; ++i) results[order[i]] = std::move(hyps[i - bounds[b]]);
    if (o.progress) {
      size_t tokens = 0;
      for (const auto& source : batch) tokens += source.size();
      o.progress->done_tokens.fetch_add(tokens, std::memory_order_relaxed);
      o.progress->done_sentences.fetch_add(batch.size(), std::memory_order_relaxed);
    }
  };
  if (within) {
    const int replicas = std::max(1, std::min(o.replicas, n_batches));
    run_replicas(replicas, budget / replicas, n_batches, translate_batch);
  } else {
    // Batches are independent: spread them over the threads (each batch writes its own results), longest
    // first, so that no thread is left finishing a long batch alone at the end. A replica of one thread
    // is such a thread, so replicas only widen the spread.
    core::ThreadsOnThisThread all(budget);
    core::parallel_for(n_batches, translate_batch);
  }
  return results;
}

std::vector<std::vector<core::Hypothesis>> Translator::translate_segments(
    const SegmentedLines& segmented, const TranslateOptions& o, const std::vector<LineControls>* controls,
    const models::AttentionRequest* capture,
    std::vector<std::vector<models::AttentionMatrices>>* attention) const {
  const size_t n_lines = segmented.lines.size();
  SourceControls all;
  if (o.sampling.enabled) {
    // The line's number over the whole input in the high half, the segment's place in the line in the low.
    for (size_t i = 0; i < n_lines; ++i) {
      for (size_t k = 0; k < segmented.lines[i].after.size(); ++k)
        all.sampling_keys.push_back(((o.first_line + i) << 32) + k);
    }
  }
  std::vector<int> beams(segmented.ids.size(), o.beam_size);
  all.constraints = segment_constraints(segmented, o, controls);
  for (size_t s = 0; s < all.constraints.size(); ++s) {
    if (!all.constraints[s].empty()) beams[s] = std::max(beams[s], kGlossaryMinBeam);
  }
  if (controls) {
    all.prefixes.resize(segmented.ids.size());
    for (size_t i = 0; i < n_lines; ++i) {
      const LineLayout& layout = segmented.lines[i];
      const LineControls& c = (*controls)[i];
      if (!c.prefix.empty() && !layout.after.empty()) all.prefixes[layout.first] = prefix_ids(c.prefix);
      for (size_t k = 0; k < layout.after.size(); ++k) {
        const bool terms = !all.constraints.empty() && !all.constraints[layout.first + k].empty();
        beams[layout.first + k] = std::max(c.beam_size.value_or(o.beam_size), terms ? kGlossaryMinBeam : 1);
      }
    }
  }
  std::vector<int> distinct = beams;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() <= 1) {
    TranslateOptions group_options = o;
    if (!distinct.empty()) group_options.beam_size = distinct[0];
    return translate_ids(segmented.ids, group_options, all, capture, attention);
  }
  if (capture && attention) attention->assign(segmented.ids.size(), {});
  // Lines of their own beam size: one translate_ids per beam size, each over its segments.
  std::vector<std::vector<core::Hypothesis>> hyps(segmented.ids.size());
  for (int beam : distinct) {
    std::vector<size_t> members;
    SourceControls group;
    std::vector<std::vector<int32_t>> sources;
    for (size_t s = 0; s < beams.size(); ++s) {
      if (beams[s] != beam) continue;
      members.push_back(s);
      sources.push_back(segmented.ids[s]);
      if (!all.sampling_keys.empty()) group.sampling_keys.push_back(all.sampling_keys[s]);
      if (!all.prefixes.empty()) group.prefixes.push_back(all.prefixes[s]);
      if (!all.constraints.empty()) group.constraints.push_back(all.constraints[s]);
    }
    TranslateOptions group_options = o;
    group_options.beam_size = beam;
    std::vector<std::vector<models::AttentionMatrices>> group_attention;
    auto group_hyps = translate_ids(sources, group_options, group, capture, &group_attention);
    for (size_t m = 0; m < members.size(); ++m) {
      hyps[members[m]] = std::move(group_hyps[m]);
      if (capture && attention) (*attention)[members[m]] = std::move(group_attention[m]);
    }
  }
  return hyps;
}

}  // namespace pipeline
