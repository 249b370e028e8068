#include "api/convert_results.h"

namespace api {

namespace {

nmt::Translation convert(const pipeline::Translator& translator, const pipeline::Translation& t) {
  nmt::Translation out;
  out.detected_language = t.detected_language;
  for (size_t k = 0; k < t.texts.size(); ++k) {
    nmt::Hypothesis h;
    h.text = t.texts[k];
    if (k < t.ids.size()) h.tokens = translator.tokenizer().target_pieces(t.ids[k]);
    if (k < t.scores.size()) h.score = t.scores[k];
    if (k < t.raw_scores.size()) h.raw_score = t.raw_scores[k];
    if (k < t.confidences.size()) h.confidence = t.confidences[k];
    if (k < t.flags.size()) h.flags = t.flags[k];
    if (k < t.alignments.size()) {
      for (const pipeline::WordLink& link : t.alignments[k])
        h.alignment.push_back({link.source, link.target});
    }
    if (k < t.word_scores.size()) h.word_scores = t.word_scores[k];
    out.hypotheses.push_back(std::move(h));
  }
  return out;
}

}  // namespace

std::vector<nmt::Translation> convert_translations(const pipeline::Translator& translator,
                                                   const std::vector<pipeline::Translation>& translations) {
  std::vector<nmt::Translation> out;
  out.reserve(translations.size());
  for (const pipeline::Translation& t : translations) out.push_back(convert(translator, t));
  return out;
}

}  // namespace api
