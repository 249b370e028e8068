#include "api/resolve_options.h"

#include <random>
#include <string_view>
#include <type_traits>

#include "front/translate_flags.h"

namespace api {

namespace {

// Each set option as the table's value type (pipeline/option_table.h: kInt int64_t, kNumber double).
template <class T>
void put(front::TranslateFlags& flags, std::string_view field, const std::optional<T>& value) {
  if (!value) return;
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
    flags.set(field, *value);
  } else if constexpr (std::is_integral_v<T>) {
    flags.set(field, static_cast<int64_t>(*value));
  } else {
    flags.set(field, static_cast<double>(*value));
  }
}

}  // namespace

pipeline::TranslateOptions resolve_options(const nmt::Options& o, const pipeline::Translator& translator) {
  front::TranslateFlags flags;
  put(flags, "beam_size", o.beam_size);
  put(flags, "length_penalty", o.length_penalty);
  put(flags, "max_length", o.max_length);
  put(flags, "max_length_a", o.max_length_a);
  put(flags, "max_length_b", o.max_length_b);
  put(flags, "n_best", o.n_best);
  put(flags, "batch_size", o.batch_size);
  put(flags, "max_batch_tokens", o.max_batch_tokens);
  put(flags, "sampling.top_k", o.sampling_top_k);
  put(flags, "sampling.top_p", o.sampling_top_p);
  put(flags, "sampling.temperature", o.sampling_temperature);
  put(flags, "sampling.seed", o.seed);
  put(flags, "repetition_penalty", o.repetition_penalty);
  put(flags, "no_repeat_ngram_size", o.no_repeat_ngram_size);
  put(flags, "word_scores", o.word_scores);
  put(flags, "alignment", o.alignment);
  put(flags, "alignment_layer", o.alignment_layer);
  put(flags, "target_lang", o.target_lang);
  put(flags, "source_lang", o.source_lang);
  put(flags, "split_sentences", o.split_sentences);
  put(flags, "max_sentence_tokens", o.max_sentence_tokens);
  put(flags, "min_confidence", o.min_confidence);
  put(flags, "on_low_confidence", o.on_low_confidence);
  put(flags, "shortlist", o.shortlist);
  put(flags, "glossary", o.glossary);
  put(flags, "terms", o.terms);
  // Sampling without a seed draws one, as `nmt translate` does.
  if (flags.apply({}).sampling.enabled && !o.seed) {
    const uint64_t seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    flags.set("sampling.seed", static_cast<int64_t>(seed >> 1));
  }
  return front::resolve_translate_options(flags, translator);
}

}  // namespace api
