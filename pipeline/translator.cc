#include "pipeline/translator.h"

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
#include "pipeline/batch_plan.h"
#include "pipeline/hypothesis_judge.h"
#include "pipeline/line_alignment.h"
#include "pipeline/option_table.h"
#include "pipeline/recasing.h"
#include "pipeline/word_scores.h"

namespace pipeline {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::unique_ptr<tokenizer::Tokenizer> load_tokenizer(const std::string& model_dir,
                                                     const models::ModelDescription& d) {
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
    throw models::ModelError(e.what());
  }
}

}  // namespace

Translator::Translator(const Translator& other, ShareModel)
    : model_dir_(other.model_dir_),
      model_(other.model_),
      tokenizer_(other.tokenizer_),
      language_tags_(other.language_tags_) {}

Translator::Translator(const std::string& model_dir) : model_dir_(model_dir) {
  auto checkpoint = std::make_unique<models::Checkpoint>(model_dir);
  // SentencePiece builds its tries on another thread while this one packs the weights: load time is about
  // the longer of the two instead of their sum. The thread owns what it uses (a copy of the description).
  auto tokenizer = std::async(std::launch::async, load_tokenizer, model_dir, checkpoint->description());
  model_ = std::make_unique<models::Transformer>(std::move(checkpoint));
  tokenizer_ = tokenizer.get();
  language_tags_ = tokenizer_->language_tags();
  const models::ModelDescription& d = model_->description();
  const int32_t src_vocab = tokenizer_->source_vocab_size(), tgt_vocab = tokenizer_->target_vocab_size();
  if (src_vocab > d.config.src_vocab_size || tgt_vocab > d.config.tgt_vocab_size) {
    throw models::ModelError(
        model_->checkpoint().json_path() + ": tokenizer vocabularies (" + std::to_string(src_vocab) +
        " source, " + std::to_string(tgt_vocab) + " target pieces) exceed the embeddings (" +
        std::to_string(d.config.src_vocab_size) + ", " + std::to_string(d.config.tgt_vocab_size) + ")");
  }
}

TranslateOptions Translator::defaults() const {
  const models::ModelDescription& m = model_->description();
  TranslateOptions o;
  o.beam_size = m.decoding.beam_size;
  o.length_penalty = m.decoding.length_penalty;
  o.max_length_a = m.decoding.max_length_a;
  o.max_length_b = m.decoding.max_length_b;
  o.max_length = m.decoding.max_length;
  o.source_lang = m.source_lang;
  o.alignment_layer = m.decoding.alignment_layer;
  o.repetition_penalty = m.decoding.repetition_penalty;
  o.no_repeat_ngram_size = m.decoding.no_repeat_ngram_size;
  o.max_sentence_tokens = std::min(kDefaultMaxSentenceTokens, m.config.max_positions);
  return o;
}

void Translator::check(const TranslateOptions& o) const {
  check_option_ranges(o);  // every option's range, declared once in pipeline/option_table.cc
  if (const std::string rule = beam_rule_error(o, o.beam_size); !rule.empty()) {
    if (o.sampling.enabled) throw OptionError("beam_size", rule);
    throw OptionError("n_best", "must be in 1..beam size (" + std::to_string(o.beam_size) + ")");
  }
  const int layers = model_->config().decoder_layers;
  if (o.alignment && o.alignment_layer >= layers) {
    throw OptionError("alignment_layer",
                      "must be in 0.." + std::to_string(layers - 1) + " (the decoder's layers)");
  }
  const int positions = model_->config().max_positions;
  if (o.max_sentence_tokens > positions) {
    throw OptionError("max_sentence_tokens",
                      "must be at most " + std::to_string(positions) + " (the model's positions)");
  }
  if (o.sampling.enabled && (!o.glossary.empty() || !o.terms.empty()))
    throw OptionError("glossary",
                      "cannot be used with sampling (the search meets the terms, sampling draws)");
  if (!o.source_lang.empty() && !models::is_language_tag(o.source_lang)) {
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

bool Translator::joins_unspaced(const TranslateOptions& o) const {
  return writes_without_spaces(o.target_lang.empty() ? model_->description().target_lang : o.target_lang);
}

std::vector<int32_t> Translator::prefix_ids(const std::string& prefix) const {
  std::vector<int32_t> ids = tokenizer_->encode_target(prefix);
  const std::string spelled = tokenizer_->decode(ids);
  if (spelled != prefix) {
    throw core::Error("the target vocabulary spells the prefix '" + prefix + "' as '" + spelled + "'");
  }
  const int positions = model_->config().max_positions;
  if (static_cast<int>(ids.size()) >= positions) {
    throw core::Error("the prefix has " + std::to_string(ids.size()) + " target pieces; the model has " +
                      std::to_string(positions) + " positions");
  }
  return ids;
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines,
                                               const TranslateOptions& o,
                                               std::vector<TranslateWarning>* warnings,
                                               const std::vector<LineControls>* controls) const {
  check(o);
  if (controls && controls->size() != lines.size()) throw core::Error("translate: one LineControls per line");
  // 1. Split: every line into segments that fit the model (sentences, cut further when too long).
  SegmentRules rules;
  rules.splitter = o.split_sentences ? &splitter(o.source_lang) : nullptr;
  rules.max_tokens = o.max_sentence_tokens;
  rules.encode = [&](const std::string& text) { return source_ids(text, o); };
  // ALL-CAPS lines are read in sentence case, the casing the model knows (models/recasing.h).
  std::vector<std::string> model_lines = lines;
  for (std::string& line : model_lines) {
    if (is_all_caps(line)) line = sentence_case(line, o.source_lang);
  }
  SegmentedLines segmented = segment_lines(model_lines, rules);
  if (warnings) warnings->insert(warnings->end(), segmented.warnings.begin(), segmented.warnings.end());
  if (o.progress) {
    size_t tokens = 0;
    for (const auto& ids : segmented.ids) tokens += ids.size();
    o.progress->total_tokens.store(tokens, std::memory_order_relaxed);
  }

  // 2. Translate the segments of all lines together, in length-sorted batches.
  std::optional<models::AttentionRequest> capture;
  if (o.alignment) capture = alignment_request(*this, o);
  std::vector<std::vector<models::AttentionMatrices>> attention;
  std::vector<std::vector<AlignedSegment>> aligned_early;  // by translate_aligned, [segment][hypothesis]
  // Without per-line controls, sampling keys or glossary terms, alignment runs a group of sentences at a
  // time: a long paragraph's attention is never held whole. (Terms need translate_segments' constraints and
  // beams.)
  const bool grouped = o.alignment && controls == nullptr && !o.sampling.enabled &&
                       segment_constraints(segmented, o, nullptr).empty();
  const auto hyps =
      grouped ? translate_aligned(*this, segmented.ids, o, &aligned_early)
              : translate_segments(segmented, o, controls, capture ? &*capture : nullptr, &attention);
  const auto aligned = [&](size_t s, size_t h, const std::string& text) {
    if (grouped) return aligned_early[s][h];
    return align_segment(*this, segmented.ids[s], hyps[s][h].tokens, attention[s][h], o, text);
  };

  // 3. Rejoin each line's translations with its source whitespace.
  const bool join_unspaced = joins_unspaced(o);
  std::vector<Translation> out(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const LineLayout& layout = segmented.lines[i];
    const size_t n = layout.after.size();
    Translation& t = out[i];
    const JudgedLine judged{lines[i], model_lines[i], o.source_lang,
                            o.target_lang.empty() ? model_->description().target_lang : o.target_lang};
    const bool scored = std::all_of(hyps.begin() + layout.first, hyps.begin() + layout.first + n,
                                    [](const auto& list) { return std::isfinite(list.front().score); });
    if (!scored) {  // NaN or infinite logits (core::search's empty hypothesis): say so, write nothing
      if (warnings)
        warnings->push_back({i, "the model yields no finite score for this line: empty translation"});
      t = Translation();
      t.texts = {""};
      t.scores = {-std::numeric_limits<float>::infinity()};
      t.ids = {{}};
      if (o.alignment) t.alignments.emplace_back();  // no words, no pairs
      t.raw_scores.push_back(-std::numeric_limits<float>::infinity());
      t.flags.emplace_back();
      t.confidences.push_back(0.0f);
      t.output_languages.emplace_back();
      if (o.word_scores) t.word_scores.emplace_back();
      continue;
    }
    detect_line_language(t, judged);
    if (n == 1) {  // one segment: its n-best list
      for (size_t k = 0; k < hyps[layout.first].size(); ++k) {
        const core::Hypothesis& h = hyps[layout.first][k];
        const std::string text = tokenizer_->decode(h.tokens);
        t.texts.push_back(rejoin(layout, {text}, join_unspaced));
        t.scores.push_back(h.score);
        t.ids.push_back(h.tokens);
        t.raw_scores.push_back(h.raw_score);
        t.flags.push_back(hypothesis_flags({&h}));
        if (o.word_scores)
          t.word_scores.push_back(word_scores(tokenizer_->target_pieces(h.tokens), h.token_scores));
        if (o.alignment) {
          t.alignments.push_back(
              line_links(layout, {aligned(layout.first, k, text)}, lines[i], t.texts.back(), join_unspaced));
        }
        judge_last(t, judged, {&h}, o);
      }
      continue;
    }
    // No segment (blank line) or several: one hypothesis, the segments' best joined; with sampling, each
    // of the n_best samples joins the segments' samples of its rank.
    const size_t n_hyps = o.sampling.enabled && n > 0 ? static_cast<size_t>(o.n_best) : 1;
    for (size_t r = 0; r < n_hyps; ++r) {
      std::vector<std::string> texts;
      std::vector<AlignedSegment> segments;
      std::vector<int32_t> ids;
      float score = 0.0f, raw_score = 0.0f;
      std::vector<const core::Hypothesis*> parts;
      std::vector<float> words;
      for (size_t k = 0; k < n; ++k) {
        const std::vector<core::Hypothesis>& list = hyps[layout.first + k];
        const size_t rank = std::min(r, list.size() - 1);
        const core::Hypothesis& h = list[rank];
        parts.push_back(&h);
        raw_score += h.raw_score;
        if (o.word_scores) {
          const std::vector<float> w = word_scores(tokenizer_->target_pieces(h.tokens), h.token_scores);
          words.insert(words.end(), w.begin(), w.end());
        }
        texts.push_back(tokenizer_->decode(h.tokens));
        if (o.alignment) segments.push_back(aligned(layout.first + k, rank, texts.back()));
        ids.insert(ids.end(), h.tokens.begin(), h.tokens.end());
        score += h.score / static_cast<float>(n);
      }
      t.texts.push_back(rejoin(layout, texts, join_unspaced));
      t.scores.push_back(score);
      t.ids.push_back(ids);
      t.raw_scores.push_back(raw_score);
      t.flags.push_back(hypothesis_flags(parts));
      if (o.word_scores) t.word_scores.push_back(std::move(words));
      if (o.alignment)
        t.alignments.push_back(line_links(layout, segments, lines[i], t.texts.back(), join_unspaced));
      judge_last(t, judged, parts, o);
    }
  }
  return out;
}

}  // namespace pipeline
