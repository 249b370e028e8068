#include "models/translator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <future>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "core/thread_team.h"
#include "core/threads.h"
#include "models/decoder_state.h"
#include "models/model_error.h"

namespace models {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::unique_ptr<tokenizer::Tokenizer> load_tokenizer(const std::string& model_dir,
                                                     const ModelDescription& d) {
  tokenizer::TokenizerSpec spec;
  spec.source_spm = model_dir + "/" + d.tokenizer.source_spm;
  spec.target_spm = model_dir + "/" + d.tokenizer.target_spm;
  spec.source_vocab = d.tokenizer.source_vocab.empty() ? "" : model_dir + "/" + d.tokenizer.source_vocab;
  spec.target_vocab = d.tokenizer.target_vocab.empty() ? "" : model_dir + "/" + d.tokenizer.target_vocab;
  spec.unk_id = d.tokens.unk;
  spec.skip_on_decode = {d.tokens.eos, d.tokens.pad, d.tokens.decoder_start};
  try {
    return std::make_unique<tokenizer::Tokenizer>(spec);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
}

// How n sorted sentences are cut into batches: full ones of batch_size and the rest, or, when that would
// leave a thread without a batch, one per thread (up to n), so a short file keeps every core busy. (A
// sentence's translation does not depend on its batch.) Larger inputs keep full batches: cutting them
// into equal batches, as many as a multiple of the threads, gains nothing measurable.
struct BatchLayout {
  BatchLayout(size_t n_sentences, int batch_size, int threads)
      : n(n_sentences),
        size(batch_size),
        full((n + size - 1) / size),
        one_per_thread(full < static_cast<size_t>(threads)),
        count(static_cast<int>(one_per_thread ? std::min(n, static_cast<size_t>(threads)) : full)) {}
  size_t begin(int b) const {
    return one_per_thread ? n * b / count : std::min(n, static_cast<size_t>(b) * size);
  }

  size_t n, size;
  size_t full;  // batches of `size`, the last one partial
  bool one_per_thread;
  int count;
};

}  // namespace

Translator::Translator(const std::string& model_dir) {
  auto checkpoint = std::make_unique<Checkpoint>(model_dir);
  // SentencePiece builds its tries on another thread while this one packs the weights: load time is about
  // the longer of the two instead of their sum. The thread owns what it uses (a copy of the description).
  auto tokenizer = std::async(std::launch::async, load_tokenizer, model_dir, checkpoint->description());
  model_ = std::make_unique<Transformer>(std::move(checkpoint));
  tokenizer_ = tokenizer.get();
  language_tags_ = tokenizer_->language_tags();
  const ModelDescription& d = model_->description();
  const int32_t src_vocab = tokenizer_->source_vocab_size(), tgt_vocab = tokenizer_->target_vocab_size();
  if (src_vocab > d.config.src_vocab_size || tgt_vocab > d.config.tgt_vocab_size) {
    throw ModelError(model_->checkpoint().json_path() + ": tokenizer vocabularies (" +
                     std::to_string(src_vocab) + " source, " + std::to_string(tgt_vocab) +
                     " target pieces) exceed the embeddings (" + std::to_string(d.config.src_vocab_size) +
                     ", " + std::to_string(d.config.tgt_vocab_size) + ")");
  }
}

TranslateOptions Translator::defaults() const {
  const ModelDescription& m = model_->description();
  TranslateOptions o;
  o.beam_size = m.decoding.beam_size;
  o.length_penalty = m.decoding.length_penalty;
  o.max_length_a = m.decoding.max_length_a;
  o.max_length_b = m.decoding.max_length_b;
  o.max_length = m.decoding.max_length;
  o.source_lang = m.source_lang;
  o.max_sentence_tokens = std::min(kDefaultMaxSentenceTokens, m.config.max_positions);
  return o;
}

void Translator::check(const TranslateOptions& o) const {
  if (o.beam_size < 1 || o.beam_size > 256) throw OptionError("beam_size", "must be in 1..256");
  if (o.n_best < 1 || o.n_best > o.beam_size) {
    throw OptionError("n_best", "must be in 1..beam size (" + std::to_string(o.beam_size) + ")");
  }
  if (o.batch_size < 1 || o.batch_size > 4096) throw OptionError("batch_size", "must be in 1..4096");
  if (o.max_length < 1) throw OptionError("max_length", "must be at least 1");
  if (!std::isfinite(o.length_penalty)) throw OptionError("length_penalty", "must be a finite number");
  if (!std::isfinite(o.max_length_a) || o.max_length_a < 0) {
    throw OptionError("max_length_a", "must be a finite number >= 0");
  }
  if (o.max_length_b < 0) throw OptionError("max_length_b", "must be at least 0");
  const int positions = model_->config().max_positions;
  if (o.max_sentence_tokens < 8 || o.max_sentence_tokens > positions) {
    throw OptionError("max_sentence_tokens",
                      "must be in 8.." + std::to_string(positions) + " (the model's positions)");
  }
  if (!o.source_lang.empty() && !is_language_tag(o.source_lang)) {
    throw OptionError("source_lang", "'" + o.source_lang + "' is not a language tag (such as en, de, pt-BR)");
  }
  if (o.target_lang.empty()) return;
  if (language_tags_.empty()) {
    const std::string& model_target = model_->description().target_lang;
    throw OptionError("target_lang", "'" + o.target_lang + "': this model translates into " +
                                         (model_target.empty() ? "one language only and takes no tag"
                                                               : "'" + model_target + "' only"));
  }
  if (std::find(language_tags_.begin(), language_tags_.end(), o.target_lang) == language_tags_.end()) {
    throw OptionError("target_lang", "'" + o.target_lang + "' is not one of this model's target languages: " +
                                         join(language_tags_));
  }
}

const tokenizer::SentenceSplitter& Translator::splitter(const std::string& language) const {
  std::lock_guard<std::mutex> lock(splitters_mutex_);
  auto& slot = splitters_[language];
  if (!slot) slot = std::make_unique<tokenizer::SentenceSplitter>(language);
  return *slot;
}

int Translator::max_output_length(int n, const TranslateOptions& o) const {
  const double by_source = std::floor(static_cast<double>(o.max_length_a) * n + o.max_length_b);
  const double limit = std::min(
      {static_cast<double>(o.max_length), by_source, static_cast<double>(model_->config().max_positions)});
  return std::max(1, static_cast<int>(limit));
}

std::vector<int32_t> Translator::source_ids(const std::string& line, const TranslateOptions& options) const {
  std::vector<int32_t> ids =
      tokenizer_->encode(options.target_lang.empty() ? line : ">>" + options.target_lang + "<< " + line);
  if (model_->description().tokenizer.add_eos) ids.push_back(model_->description().tokens.eos);
  return ids;
}

std::vector<std::vector<core::Hypothesis>> Translator::translate_ids(
    const std::vector<std::vector<int32_t>>& sources, const TranslateOptions& o) const {
  check(o);
  const ModelDescription& d = model_->description();
  core::SearchOptions search;
  search.beam_size = o.beam_size;
  search.n_best = o.n_best;
  search.length_penalty = o.length_penalty;
  search.renormalize = d.decoding.renormalize;
  search.eos_id = d.tokens.eos;
  search.start_id = d.tokens.decoder_start;
  search.banned = {d.tokens.pad};
  if (d.tokens.decoder_start != d.tokens.eos && d.tokens.decoder_start != d.tokens.pad) {
    search.banned.push_back(d.tokens.decoder_start);
  }
  if (d.decoding.ban_unk) search.banned.push_back(d.tokens.unk);

  // Sort by length so each batch holds similar lengths; results go back to input order.
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<std::vector<core::Hypothesis>> results(sources.size());
  const bool within = core::threads_share_batches(model_->config().d_model);
  const BatchLayout batches(order.size(), o.batch_size, within ? 1 : core::num_threads());
  const auto translate_batch = [&](int task) {
    const int b = batches.count - 1 - task;
    const size_t begin = batches.begin(b);
    const size_t end = batches.begin(b + 1);
    std::vector<std::vector<int32_t>> batch;
    std::vector<int> max_lengths;
    for (size_t i = begin; i < end; ++i) {
      batch.push_back(sources[order[i]]);
      max_lengths.push_back(max_output_length(static_cast<int>(batch.back().size()), o));
    }
    const EncodedBatch encoded = model_->encode(batch);
    const int max_steps = *std::max_element(max_lengths.begin(), max_lengths.end());
    DecoderState state(*model_, encoded, static_cast<int>(batch.size()) * o.beam_size, max_steps);
    auto hyps = core::search(state, max_lengths, search);
    for (size_t i = begin; i < end; ++i) results[order[i]] = std::move(hyps[i - begin]);
  };
  if (within) {
    core::ThreadTeam team(core::num_threads());
    for (int task = 0; task < batches.count; ++task) translate_batch(task);
  } else {
    // Batches are independent: spread them over the threads (each batch writes its own results), longest
    // first, so that no thread is left finishing a long batch alone at the end.
    core::parallel_for(batches.count, translate_batch);
  }
  return results;
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines,
                                               const TranslateOptions& o,
                                               std::vector<TranslateWarning>* warnings) const {
  check(o);
  // 1. Split: every line into segments that fit the model (sentences, cut further when too long).
  SegmentRules rules;
  rules.splitter = o.split_sentences ? &splitter(o.source_lang) : nullptr;
  rules.max_tokens = o.max_sentence_tokens;
  rules.encode = [&](const std::string& text) { return source_ids(text, o); };
  SegmentedLines segmented = segment_lines(lines, rules);
  if (warnings) warnings->insert(warnings->end(), segmented.warnings.begin(), segmented.warnings.end());

  // 2. Translate the segments of all lines together, in length-sorted batches.
  const auto hyps = translate_ids(segmented.ids, o);

  // 3. Rejoin each line's translations with its source whitespace.
  const std::string& target = o.target_lang.empty() ? model_->description().target_lang : o.target_lang;
  const bool join_unspaced = writes_without_spaces(target);
  std::vector<Translation> out(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const LineLayout& layout = segmented.lines[i];
    const size_t n = layout.after.size();
    Translation& t = out[i];
    const bool scored = std::all_of(hyps.begin() + layout.first, hyps.begin() + layout.first + n,
                                    [](const auto& list) { return std::isfinite(list.front().score); });
    if (!scored) {  // NaN or infinite logits (core::search's empty hypothesis): say so, write nothing
      if (warnings)
        warnings->push_back({i, "the model yields no finite score for this line: empty translation"});
      t = Translation{{""}, {-std::numeric_limits<float>::infinity()}, {{}}};
      continue;
    }
    if (n == 1) {  // one segment: its n-best list
      for (const auto& h : hyps[layout.first]) {
        t.texts.push_back(rejoin(layout, {tokenizer_->decode(h.tokens)}, join_unspaced));
        t.scores.push_back(h.score);
        t.ids.push_back(h.tokens);
      }
      continue;
    }
    // No segment (blank line) or several: one hypothesis, the segments' best joined.
    std::vector<std::string> texts;
    std::vector<int32_t> ids;
    float score = 0.0f;
    for (size_t k = 0; k < n; ++k) {
      const core::Hypothesis& h = hyps[layout.first + k].front();
      texts.push_back(tokenizer_->decode(h.tokens));
      ids.insert(ids.end(), h.tokens.begin(), h.tokens.end());
      score += h.score / static_cast<float>(n);
    }
    t.texts = {rejoin(layout, texts, join_unspaced)};
    t.scores = {score};
    t.ids = {ids};
  }
  return out;
}

}  // namespace models
