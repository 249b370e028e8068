#include "front/jsonl_output.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace front {

namespace {

using Json = nlohmann::ordered_json;  // fields in the order written

// One hypothesis's fields, every one in every record (docs/jsonl-output.schema.json): a value not asked
// for or not known is null, a list with nothing in it is empty. A new field is one line here and one in
// the schema.
Json hypothesis_json(const pipeline::Translation& t, size_t k, const tokenizer::Tokenizer& tokenizer) {
  Json j;
  j["text"] = t.texts[k];
  j["score"] = std::round(static_cast<double>(t.scores[k]) * 1e6) / 1e6;  // the digits of --scores
  j["tokens"] = tokenizer.target_pieces(t.ids[k]);
  j["alignment"] = t.alignments.empty() ? Json() : Json(pipeline::format_alignment(t.alignments[k]));
  j["word_scores"] = nullptr;
  if (!t.word_scores.empty()) {
    Json scores = Json::array();
    for (float s : t.word_scores[k]) scores.push_back(std::round(static_cast<double>(s) * 1e6) / 1e6);
    j["word_scores"] = std::move(scores);
  }
  j["confidence"] = k < t.confidences.size()  // pipeline/sentence_checks.h
                        ? Json(std::round(static_cast<double>(t.confidences[k]) * 1e4) / 1e4)
                        : Json();
  j["flags"] = k < t.flags.size() ? Json(t.flags[k]) : Json::array();  // codes of what went wrong
  // pipeline/language_identifier.h
  j["output_language"] =
      k < t.output_languages.size() && !t.output_languages[k].empty() ? Json(t.output_languages[k]) : Json();
  return j;
}

std::string dump(const Json& j) {
  // Pieces of a byte-fallback vocabulary may be partial UTF-8: replace rather than fail.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string translation_json(const pipeline::Translation& t, const tokenizer::Tokenizer& tokenizer,
                             bool with_nbest) {
  Json j = hypothesis_json(t, 0, tokenizer);
  j["detected_language"] = t.detected_language.empty() ? Json() : Json(t.detected_language);  // the input's
  j["nbest"] = nullptr;
  if (with_nbest) {
    Json nbest = Json::array();
    for (size_t k = 0; k < t.texts.size(); ++k) nbest.push_back(hypothesis_json(t, k, tokenizer));
    j["nbest"] = std::move(nbest);
  }
  return dump(j);
}

std::string error_json(const std::string& message) { return dump(Json{{"error", message}}); }

}  // namespace front
