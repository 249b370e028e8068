#include "cli/translate_flags.h"

#include <map>

namespace cli {

namespace {

// The flag that sets each TranslateOptions field, for the library's messages.
std::string flag_for(const std::string& option) {
  static const std::map<std::string, std::string> flags = {
      {"beam_size", "--beam-size"},
      {"length_penalty", "--length-penalty"},
      {"max_length_a", "--max-length-a"},
      {"max_length_b", "--max-length-b"},
      {"max_length", "--max-length"},
      {"max_sentence_tokens", "--max-sentence-tokens"},
      {"source_lang", "--source-lang"},
      {"target_lang", "--target-lang"},
      {"n_best", "--n-best"},
      {"batch_size", "--batch-size"},
      {"max_batch_tokens", "--max-batch-tokens"},
      {"sampling.top_k", "--sampling-topk"},
      {"sampling.top_p", "--sampling-topp"},
      {"sampling.temperature", "--sampling-temperature"},
      {"alignment_layer", "--alignment-layer"},
      {"repetition_penalty", "--repetition-penalty"},
      {"no_repeat_ngram_size", "--no-repeat-ngram-size"}};
  const auto it = flags.find(option);
  return it == flags.end() ? option : it->second;
}

}  // namespace

models::TranslateOptions resolve_translate_flags(const TranslateFlags& f,
                                                 const models::Translator& translator) {
  models::TranslateOptions o = translator.defaults();
  if (f.sampling.enabled) o.beam_size = 1;  // sampling draws one token at a time
  if (f.beam_size) o.beam_size = *f.beam_size;
  if (f.length_penalty) o.length_penalty = *f.length_penalty;
  if (f.max_length_a) o.max_length_a = *f.max_length_a;
  if (f.max_length_b) o.max_length_b = *f.max_length_b;
  if (f.max_length) o.max_length = *f.max_length;
  if (f.max_sentence_tokens) o.max_sentence_tokens = *f.max_sentence_tokens;
  if (f.source_lang && !f.source_lang->empty()) o.source_lang = *f.source_lang;
  o.n_best = f.n_best;
  o.batch_size = f.batch_size;
  o.max_batch_tokens = f.max_batch_tokens;
  o.sampling = f.sampling;
  o.split_sentences = f.split_sentences;
  o.alignment = f.alignment;
  if (f.alignment_layer) o.alignment_layer = *f.alignment_layer;
  if (f.repetition_penalty) o.repetition_penalty = *f.repetition_penalty;
  if (f.no_repeat_ngram_size) o.no_repeat_ngram_size = *f.no_repeat_ngram_size;
  o.word_scores = f.word_scores;
  // A model without language tags has no tag to prepend: naming its own target language is allowed.
  const bool own_target =
      translator.language_tags().empty() && f.target_lang == translator.model().description().target_lang;
  o.target_lang = own_target ? std::string() : f.target_lang;
  try {
    translator.check(o);
  } catch (const models::OptionError& e) {
    throw core::UsageError(flag_for(e.option()) + " " + e.rule());
  }
  return o;
}

}  // namespace cli
