#include "pipeline/option_table.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "models/decoding_ranges.h"

namespace pipeline {
namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;  // seeds are 0..2^63-1

OptionValue to_value(int v) { return int64_t{v}; }
OptionValue to_value(float v) { return double{v}; }
OptionValue to_value(bool v) { return v; }
OptionValue to_value(const std::string& v) { return v; }
OptionValue to_value(uint64_t v) {
  // Beyond int64_t only as a double, which the range check refuses.
  return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? OptionValue(static_cast<int64_t>(v))
             : OptionValue(static_cast<double>(v));
}

double as_number(const OptionValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  throw std::logic_error("option value is not a number");
}

void from_value(const OptionValue& v, int& out) { out = static_cast<int>(as_number(v)); }
void from_value(const OptionValue& v, float& out) { out = static_cast<float>(as_number(v)); }
void from_value(const OptionValue& v, bool& out) { out = std::get<bool>(v); }
void from_value(const OptionValue& v, std::string& out) { out = std::get<std::string>(v); }
void from_value(const OptionValue& v, uint64_t& out) {
  const auto* i = std::get_if<int64_t>(&v);
  out = i != nullptr ? static_cast<uint64_t>(*i) : static_cast<uint64_t>(as_number(v));
}

// The struct a pointer to member belongs to: a row's accessors take TranslateOptions or FrontOptions.
template <class MemberPointer>
struct OwnerOf;
template <class Owner, class Value>
struct OwnerOf<Value Owner::*> {
  using type = Owner;
};
template <auto Member>
using Owner = typename OwnerOf<decltype(Member)>::type;

template <auto Member>
OptionValue get_field(const Owner<Member>& o) {
  return to_value(o.*Member);
}
template <auto Member>
void set_field(Owner<Member>& o, const OptionValue& v) {
  from_value(v, o.*Member);
}
template <auto Member>
OptionValue get_sampling(const TranslateOptions& o) {
  return to_value(o.sampling.*Member);
}
// Setting top_k, top_p or temperature turns sampling on; the seed alone does not.
template <auto Member, bool kEnables = true>
void set_sampling(TranslateOptions& o, const OptionValue& v) {
  if (kEnables) o.sampling.enabled = true;
  from_value(v, o.sampling.*Member);
}

bool when_sampling(const TranslateOptions& o) { return o.sampling.enabled; }
bool when_aligning(const TranslateOptions& o) { return o.alignment; }

OptionSpec spec(OptionType type, std::string_view field, std::string_view names, std::string_view help,
                DefaultFrom from, std::string_view default_text, double lo = 0, double hi = 0) {
  OptionSpec s;
  s.type = type;
  s.field = field;
  s.names = names;
  s.help = help;
  s.default_from = from;
  s.default_text = default_text;
  s.lo = lo;
  s.hi = hi;
  return s;
}

// A range of models/decoding_ranges.h as spec()'s last two arguments.
struct R {
  explicit R(models::IntRange r) : lo(static_cast<double>(r.lo)), hi(static_cast<double>(r.hi)) {}
  explicit R(models::NumberRange r) : lo(r.lo), hi(r.hi) {}
  double lo, hi;
};

OptionSpec spec(OptionType type, std::string_view field, std::string_view names, std::string_view help,
                DefaultFrom from, std::string_view default_text, R range) {
  return spec(type, field, names, help, from, default_text, range.lo, range.hi);
}

std::vector<OptionSpec> build_table() {
  using O = TranslateOptions;
  using F = FrontOptions;
  using S = core::SamplingOptions;
  const auto kModel = DefaultFrom::kModel;
  const auto kFixed = DefaultFrom::kFixed;
  std::vector<OptionSpec> t;
  OptionSpec* s = nullptr;
  const auto add = [&](OptionSpec row, auto get, auto set) -> OptionSpec* {
    row.get = get;
    row.set = set;
    t.push_back(row);
    return &t.back();
  };
  const auto add_front = [&](OptionSpec row, auto get, auto set) -> OptionSpec* {
    row.get_front = get;
    row.set_front = set;
    t.push_back(row);
    return &t.back();
  };
  t.reserve(32);

  s = add(spec(OptionType::kInt, "beam_size", "-b,--beam-size,--beam", "Beam width; 1 = greedy", kModel,
               "the model's", R(models::kBeamSizeRange)),
          get_field<&O::beam_size>, set_field<&O::beam_size>);
  s->changes_output = s->attention = true;
  s = add(spec(OptionType::kNumber, "length_penalty", "--length-penalty", "Score = log-prob / length^alpha",
               kModel, "the model's", R(models::kLengthPenaltyRange)),
          get_field<&O::length_penalty>, set_field<&O::length_penalty>);
  s->changes_output = s->attention = true;
  s = add(spec(OptionType::kInt, "max_length", "--max-length", "Hard cap on generated tokens, EOS included",
               kModel, "the model's", R(models::kMaxLengthRange)),
          get_field<&O::max_length>, set_field<&O::max_length>);
  s->changes_output = s->attention = true;
  s = add(spec(OptionType::kNumber, "max_length_a", "--max-length-a",
               "Generated tokens <= a * source tokens + b: a", kModel, "the model's",
               R(models::kMaxLengthARange)),
          get_field<&O::max_length_a>, set_field<&O::max_length_a>);
  s->changes_output = s->attention = true;
  s = add(spec(OptionType::kInt, "max_length_b", "--max-length-b", "... and b", kModel, "the model's",
               R(models::kMaxLengthBRange)),
          get_field<&O::max_length_b>, set_field<&O::max_length_b>);
  s->changes_output = s->attention = true;
  // Batching never changes a sentence's translation (tests/unit/test_shared_batches.cc).
  add(spec(OptionType::kInt, "batch_size", "--batch-size", "Sentences per batch", kFixed, "32", 1, 4096),
      get_field<&O::batch_size>, set_field<&O::batch_size>);
  add(spec(OptionType::kInt, "max_batch_tokens", "--max-batch-tokens",
           "Batches of at most N source tokens instead of --batch-size sentences (for inputs whose line "
           "lengths vary a lot; 0 = off)",
           kFixed, "0", 0, 1 << 24),
      get_field<&O::max_batch_tokens>, set_field<&O::max_batch_tokens>);
  add(spec(OptionType::kInt, "replicas", "--replicas",
           "Translators sharing one copy of the weights, each with --threads threads, taking batches from "
           "one queue: faster than more threads per translator on many batches (docs/speed.md)",
           kFixed, "1", 1, kMaxReplicas),
      get_field<&O::replicas>, set_field<&O::replicas>);
  s = add(spec(OptionType::kInt, "n_best", "--n-best",
               "Print the N best hypotheses as Marian does: 'LINE ||| text ||| F0= raw score ||| normalized "
               "score'",
               kFixed, "1", R(models::kBeamSizeRange)),
          get_field<&O::n_best>, set_field<&O::n_best>);
  s->changes_output = true;
  s = add(spec(OptionType::kInt, "sampling.top_k", "--sampling-topk",
               "Sample each token from the K most likely (0 = the whole vocabulary; 1 = greedy)", kFixed, "0",
               0, 1 << 24),
          get_sampling<&S::top_k>, set_sampling<&S::top_k>);
  s->changes_output = true;
  s->applies = when_sampling;
  s = add(spec(OptionType::kNumber, "sampling.top_p", "--sampling-topp",
               "Sample from the fewest most likely tokens whose probabilities reach P (nucleus)", kFixed, "1",
               0, 1),
          get_sampling<&S::top_p>, set_sampling<&S::top_p>);
  s->changes_output = s->lo_exclusive = true;
  s->applies = when_sampling;
  s = add(spec(OptionType::kNumber, "sampling.temperature", "--sampling-temperature",
               "Sample from softmax(logits / T): T < 1 sharpens, T > 1 flattens", kFixed, "1", 0, 100),
          get_sampling<&S::temperature>, set_sampling<&S::temperature>);
  s->changes_output = s->lo_exclusive = true;
  s->applies = when_sampling;
  s = add(spec(OptionType::kInt, "sampling.seed", "--seed",
               "Random seed of sampling: the same seed, model, input and flags give the same output, "
               "whatever --threads and --batch-size",
               kFixed, "a random seed", 0, kTwoTo63 - 1),
          get_sampling<&S::seed>, set_sampling<&S::seed, false>);
  s->changes_output = true;
  s->applies = when_sampling;
  // The search's loop guards (core/loop_guard.h, docs/search.md).
  s = add(spec(OptionType::kNumber, "repetition_penalty", "--repetition-penalty",
               "Divide the logits of tokens already generated by P (multiply if < 0); 1 = off", kModel,
               "the model's", R(models::kRepetitionPenaltyRange)),
          get_field<&O::repetition_penalty>, set_field<&O::repetition_penalty>);
  s->changes_output = true;
  s = add(spec(OptionType::kInt, "no_repeat_ngram_size", "--no-repeat-ngram-size",
               "Never repeat an n-gram of N tokens; 0 = off", kModel, "the model's",
               R(models::kNoRepeatNgramSizeRange)),
          get_field<&O::no_repeat_ngram_size>, set_field<&O::no_repeat_ngram_size>);
  s->changes_output = true;
  s = add(spec(OptionType::kFlag, "word_scores", "--word-scores",
               "Per-word log-probabilities (a word's pieces summed): Marian's ' ||| WordScores= ...' field, "
               "or word_scores in JSON lines",
               kFixed, "off"),
          get_field<&O::word_scores>, set_field<&O::word_scores>);
  s->changes_output = true;
  s = add(spec(OptionType::kFlag, "alignment", "--alignment",
               "Append ' ||| ' and word alignments as Marian does: 's-t' pairs, 0-based, source word first",
               kFixed, "off"),
          get_field<&O::alignment>, set_field<&O::alignment>);
  s->changes_output = true;
  s = add(spec(OptionType::kInt, "alignment_layer", "--alignment-layer",
               "The decoder layer whose cross-attention aligns words, 0-based", kModel, "the model's",
               R(models::kAlignmentLayerRange)),
          get_field<&O::alignment_layer>, set_field<&O::alignment_layer>);
  s->changes_output = true;
  s->applies = when_aligning;
  s->automatic = -1;
  s = add(spec(OptionType::kText, "target_lang", "--target-lang",
               "Target language: one of a multilingual model's tags (prepends >>LANG<<), or the model's own",
               kFixed, "none"),
          get_field<&O::target_lang>, set_field<&O::target_lang>);
  s->changes_output = s->attention = true;
  s = add(spec(OptionType::kText, "source_lang", "--source-lang",
               "Language of the input for sentence splitting (see `nmt info`)", kModel, "the model's"),
          get_field<&O::source_lang>, set_field<&O::source_lang>);
  s->changes_output = true;
  s = add(
      spec(OptionType::kFlag, "split_sentences", "--no-split",
           "Do not split lines into sentences (input already has one sentence per line)", kFixed, "split"),
      get_field<&O::split_sentences>, set_field<&O::split_sentences>);
  s->changes_output = true;
  s->flag_value = false;
  s = add(
      spec(OptionType::kInt, "max_sentence_tokens", "--max-sentence-tokens",
           "Sentences over this many tokens are cut at clauses, then spaces; at most the model's positions",
           kModel, "200", 8, 1 << 20),
      get_field<&O::max_sentence_tokens>, set_field<&O::max_sentence_tokens>);
  s->changes_output = true;
  // Confidence and flags (pipeline/sentence_checks.h, docs/search.md).
  s = add(spec(OptionType::kNumber, "min_confidence", "--min-confidence",
               "Flag translations whose confidence is below X 'low-confidence' (0 = off)", kFixed, "0", 0, 1),
          get_field<&O::min_confidence>, set_field<&O::min_confidence>);
  s->changes_output = true;
  s = add(spec(OptionType::kText, "on_low_confidence", "--on-low-confidence",
               "What is written for a translation below the minimum confidence (keep the translation, the "
               "source line, an empty line, or the translation marked '[low confidence] ')",
               kFixed, "keep"),
          get_field<&O::on_low_confidence>, set_field<&O::on_low_confidence>);
  s->changes_output = true;
  s->choices = "keep|source|empty|mark";
  s = add_front(
      spec(OptionType::kText, "format", "--format",
           "The input's format, one of text, html, xml, markdown, srt, vtt, docx, odt, pptx, epub (markup, "
           "subtitle timings, code and formatting are kept and only text is translated: docs/formats.md) or "
           "auto: by the file's extension, text for standard input",
           kFixed, "auto"),
      get_field<&F::format>, set_field<&F::format>);
  s->changes_output = true;
  add_front(
      spec(OptionType::kFlag, "copy_other", "--copy-other",
           "Directory mode: copy the files not translated (not matching --glob, or binary and no document) "
           "to the same path in the output tree unchanged, with their mode bits; links, FIFOs and devices "
           "are skipped",
           kFixed, "off"),
      get_field<&F::copy_other>, set_field<&F::copy_other>);
  s = add(spec(OptionType::kText, "shortlist", "--shortlist",
               "Compute logits only over the batch's lexical shortlist (the model folder's shortlist.bin, "
               "built by `nmt shortlist`; scores are over the shortlist): on, off, or auto = on when the "
               "folder has one",
               kFixed, "auto"),
          get_field<&O::shortlist>, set_field<&O::shortlist>);
  s->changes_output = true;
  s->choices = "auto|on|off";
  // Terminology (pipeline/glossary.h, docs/glossary.md). The resume key and the server's batches also hold
  // the loaded terms themselves (front/output_options_key), so an edited file counts; /v1/translate takes
  // neither row (a request may not name a file of the server's; its JSON lines carry a glossary field).
  s = add(spec(OptionType::kText, "glossary", "--glossary",
               "Terms the translation must use: a UTF-8 file of SOURCE<TAB>TARGET lines, TARGET's forms "
               "separated by '|', an optional third column 'case' (docs/glossary.md); a sentence whose term "
               "could not be met is flagged glossary-miss",
               kFixed, "none"),
          get_field<&O::glossary>, set_field<&O::glossary>);
  s->changes_output = true;
  s->value_name = "FILE";
  s = add(spec(OptionType::kText, "terms", "--term",
               "One term the translation must use, SOURCE=TARGET (forms separated by '|'); repeatable, over "
               "--glossary",
               kFixed, "none"),
          get_field<&O::terms>, set_field<&O::terms>);
  s->changes_output = true;
  s->value_name = "SRC=TGT";
  s->repeats = true;
  add_front(
      spec(OptionType::kFlag, "flag_warnings", "--flag-warnings",
           "Warn 'FILE:LINE: flagged CODES (confidence X)' for every translation with flags", kFixed, "off"),
      get_field<&F::flag_warnings>, set_field<&F::flag_warnings>);
  return t;
}

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = build_table();
  return table;
}

const OptionSpec& option_spec(std::string_view field) {
  for (const OptionSpec& s : option_table()) {
    if (s.field == field) return s;
  }
  throw std::logic_error("no option '" + std::string(field) + "' in the option table");
}

std::string flag_name(const OptionSpec& spec) {
  std::string_view names = spec.names;
  while (!names.empty()) {
    const size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (name.size() > 2 && name.substr(0, 2) == "--") return std::string(name);
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
  }
  return std::string(spec.names.substr(0, spec.names.find(',')));
}

std::string range_text(const OptionSpec& spec) {
  if (spec.type == OptionType::kInt) {
    const std::string hi = spec.hi >= kTwoTo63 - 1 ? "2^63-1" : std::to_string(static_cast<int64_t>(spec.hi));
    return std::to_string(static_cast<int64_t>(spec.lo)) + ".." + hi;
  }
  if (spec.type == OptionType::kText) return std::string(spec.choices);
  if (spec.type != OptionType::kNumber) return "";
  if (spec.lo_exclusive) return "above " + format_number(spec.lo) + " up to " + format_number(spec.hi);
  return format_number(spec.lo) + ".." + format_number(spec.hi);
}

namespace {

// Whether `value` is one of the "|"-separated `choices`.
bool is_choice(std::string_view choices, std::string_view value) {
  while (true) {
    const size_t bar = choices.find('|');
    if (choices.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) return false;
    choices.remove_prefix(bar + 1);
  }
}

}  // namespace

std::string range_error(const OptionSpec& spec, const OptionValue& value) {
  if (spec.type == OptionType::kText && !spec.choices.empty()) {
    const auto* text = std::get_if<std::string>(&value);
    if (text != nullptr && is_choice(spec.choices, *text)) return "";
    return "must be one of " + std::string(spec.choices);
  }
  if (spec.type != OptionType::kInt && spec.type != OptionType::kNumber) return "";
  const auto* whole = std::get_if<int64_t>(&value);
  if (whole != nullptr && spec.automatic && *whole == *spec.automatic) return "";
  const double v = as_number(value);
  const bool in_range = std::isfinite(v) && (spec.lo_exclusive ? v > spec.lo : v >= spec.lo) && v <= spec.hi;
  if (in_range && (spec.type == OptionType::kNumber || whole != nullptr)) return "";
  return std::string("must be ") + (spec.type == OptionType::kInt ? "a whole number in " : "a number ") +
         (spec.type == OptionType::kNumber && !spec.lo_exclusive ? "in " : "") + range_text(spec);
}

std::string beam_rule_error(const TranslateOptions& options, int64_t beam_size) {
  if (options.sampling.enabled)
    return beam_size == 1 ? "" : "must be 1 with sampling (it draws one token at a time)";
  if (beam_size < options.n_best)
    return "must be at least " + flag_name(option_spec("n_best")) + " (" + std::to_string(options.n_best) +
           ")";
  return "";
}

void check_option_ranges(const TranslateOptions& options) {
  for (const OptionSpec& spec : option_table()) {
    if (spec.get == nullptr || (spec.applies != nullptr && !spec.applies(options))) continue;
    const std::string error = range_error(spec, spec.get(options));
    if (!error.empty()) throw OptionError(std::string(spec.field), error);
  }
  // The shortest sentence (one token and the end) must have room for a token and the end.
  if (std::floor(static_cast<double>(options.max_length_a) * models::kShortestSourceTokens +
                 options.max_length_b) < static_cast<double>(models::kMaxLengthRange.lo)) {
    throw OptionError("max_length_b",
                      "leaves no room for a word with " + flag_name(option_spec("max_length_a")) + " " +
                          format_number(options.max_length_a) + ": a * 2 + b must be at least 2 (a token " +
                          "and the end of the sentence)");
  }
}

}  // namespace pipeline
