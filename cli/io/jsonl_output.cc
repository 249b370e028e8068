#include "cli/io/jsonl_output.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace cli {

namespace {

using Json = nlohmann::ordered_json;  // fields in the order written

// One hypothesis's fields; a new field is one line here.
Json hypothesis_json(const pipeline::Translation& t, size_t k, const tokenizer::Tokenizer& tokenizer) {
  Json j;
  j["text"] = t.texts[k];
  j["score"] = std::round(static_cast<double>(t.scores[k]) * 1e6) / 1e6;  // the digits of --scores
  j["tokens"] = tokenizer.target_pieces(t.ids[k]);
  if (!t.alignments.empty()) j["alignment"] = pipeline::format_alignment(t.alignments[k]);
  if (!t.word_scores.empty()) {
    Json scores = Json::array();
    for (float s : t.word_scores[k]) scores.push_back(std::round(static_cast<double>(s) * 1e6) / 1e6);
    j["word_scores"] = std::move(scores);
  }
  if (k < t.confidences.size())
    j["confidence"] =
        std::round(static_cast<double>(t.confidences[k]) * 1e4) / 1e4;     // pipeline/sentence_checks.h
  if (k < t.flags.size() && !t.flags[k].empty()) j["flags"] = t.flags[k];  // codes of what went wrong
  if (k < t.output_languages.size() && !t.output_languages[k].empty())
    j["output_language"] = t.output_languages[k];  // models/language_identifier.h
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
  if (!t.detected_language.empty()) j["detected_language"] = t.detected_language;  // the input line's
  if (with_nbest) {
    Json nbest = Json::array();
    for (size_t k = 0; k < t.texts.size(); ++k) nbest.push_back(hypothesis_json(t, k, tokenizer));
    j["nbest"] = std::move(nbest);
  }
  return dump(j);
}

std::string error_json(const std::string& message) { return dump(Json{{"error", message}}); }

}  // namespace cli
