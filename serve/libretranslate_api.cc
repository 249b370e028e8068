#include "serve/libretranslate_api.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "core/text_lines.h"
#include "core/utf8_text.h"
#include "documents/translate_document.h"
#include "serve/api_error.h"
#include "serve/request_glossary.h"
#include "serve/source_detection.h"

namespace serve {

namespace {

using Json = nlohmann::json;

// A text field: present, a string, valid UTF-8 (a form's bytes are not checked by any parser).
std::string text_field(const Json& request, const std::string& name) {
  const auto it = request.find(name);
  if (it == request.end() || it->is_null())
    throw ApiError(400, "Invalid request: missing " + name + " parameter");
  if (!it->is_string()) throw ApiError(400, "Invalid request: " + name + " must be a string");
  const std::string value = it->get<std::string>();
  if (!core::is_valid_utf8(value)) throw ApiError(400, "Invalid request: " + name + " is not valid UTF-8");
  return value;
}

// A language code field, lower case (codes are ASCII; "EN" names en).
std::string code_field(const Json& request, const std::string& name) {
  std::string code = text_field(request, name);
  for (char& c : code) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return code;
}

// q as a list of texts, and whether it came as an array; an array's texts, empty ones too, count toward
// --max-items.
std::vector<std::string> texts_of(const TranslationService& service, const Json& request, bool& is_array) {
  const auto q = request.find("q");
  if (q == request.end() || q->is_null()) throw ApiError(400, "Invalid request: missing q parameter");
  is_array = q->is_array();
  if (!is_array) return {text_field(request, "q")};
  service.check_items(q->size());
  std::vector<std::string> texts;
  for (const Json& item : *q) {
    if (!item.is_string()) throw ApiError(400, "Invalid request: q must be a string or an array of strings");
    texts.push_back(item.get<std::string>());
    if (!core::is_valid_utf8(texts.back())) throw ApiError(400, "Invalid request: q is not valid UTF-8");
  }
  return texts;
}

// alternatives: a whole number (JSON or form text) in 0..max.
int alternatives_of(const Json& request, int max) {
  const auto it = request.find("alternatives");
  if (it == request.end() || it->is_null()) return 0;
  long value = -1;
  if (it->is_number_integer()) {
    value = it->get<long>();
  } else if (it->is_string()) {
    const std::string s = it->get<std::string>();
    if (!s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), ::isdigit)) value = std::stol(s);
  }
  if (value < 0 || value > max) {
    throw ApiError(400, "Invalid request: alternatives must be a whole number in 0.." + std::to_string(max));
  }
  return static_cast<int>(value);
}

// One text's answer: the lines' best translations joined, and alternative k the lines' k-th (a line with
// fewer hypotheses gives its last).
void answer_text(const std::vector<pipeline::Translation>& lines, int alternatives, Json& text, Json& alts) {
  std::vector<std::string> best;
  for (const pipeline::Translation& t : lines) best.push_back(t.texts[0]);
  text = join_lines(best);
  alts = Json::array();
  for (int k = 1; k <= alternatives; ++k) {
    std::vector<std::string> kth;
    bool any = false;
    for (const pipeline::Translation& t : lines) {
      const size_t at = std::min(static_cast<size_t>(k), t.texts.size() - 1);
      any = any || at == static_cast<size_t>(k);
      kth.push_back(t.texts[at]);
    }
    if (any) alts.push_back(join_lines(kth));
  }
}

Json detected_json(const DetectedLanguage& d) {
  return {{"confidence", d.confidence}, {"language", d.language}};
}

// The texts as one, for the identifier: a request is one language, detected once.
std::string joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& t : texts) all += t + "\n";
  return all;
}

// format html: each q a document fragment through the formatted-documents path (documents/), markup kept
// and projected onto the translation; one translation each, no alternatives.
Json html_response(TranslationService& service, const LanguagePair& pair,
                   const pipeline::TranslateOptions& options, const std::vector<std::string>& texts,
                   bool is_array, const DetectedLanguage* detect) {
  Json translated = Json::array(), detected = Json::array();
  for (const std::string& text : texts) {
    // Owned by the task: a task still running when the request times out must not write into this frame.
    auto out = std::make_shared<std::string>();
    service.run_alone([out, pair, options, text] {
      std::vector<std::string> warnings;
      *out = documents::translate_document(*pair.translator, options, documents::DocumentFormat::kHtml, text,
                                           "q", &warnings);
    });
    translated.push_back(*out);
    if (detect != nullptr) detected.push_back(detected_json(*detect));
  }
  Json answer = Json::object();
  answer["translatedText"] = is_array ? translated : translated[0];
  if (detect != nullptr) answer["detectedLanguage"] = is_array ? detected : detected[0];
  return answer;
}

}  // namespace

std::string format_error(const std::string& format) {
  if (format == "text" || format == "html") return "";
  return "Invalid request: format must be text or html";
}

Json translate_response(TranslationService& service, const Json& request) {
  bool is_array = false;
  const std::vector<std::string> texts = texts_of(service, request, is_array);
  const std::string source = code_field(request, "source");
  const std::string target = code_field(request, "target");
  // Absent, null or empty: text, as LibreTranslate takes it.
  const auto format_it = request.find("format");
  const bool no_format = format_it == request.end() || format_it->is_null() ||
                         (format_it->is_string() && format_it->get<std::string>().empty());
  const std::string format = no_format ? "text" : text_field(request, "format");
  if (const std::string e = format_error(format); !e.empty()) throw ApiError(400, e);
  const int alternatives = alternatives_of(request, 255);
  service.check_characters(texts, 1 + static_cast<size_t>(alternatives));
  DetectedLanguage detected_source;
  const bool detect = source == "auto";
  const LanguagePair& pair = detect ? auto_pair(service.models(), joined(texts), target, detected_source)
                                    : service.pair(source, target);
  pipeline::TranslateOptions options = glossary_options(pair.options, service.options(), request);
  if (format == "html")
    return html_response(service, pair, options, texts, is_array, detect ? &detected_source : nullptr);
  options.n_best = alternatives + 1;
  options.beam_size = std::max(options.beam_size, options.n_best);  // n-best needs that many beams
  // Every text's lines in one job, so an array q is one batch.
  std::vector<std::string> lines;
  std::vector<size_t> first_line;
  for (const std::string& text : texts) {
    first_line.push_back(lines.size());
    for (std::string& line : core::split_lines(text)) lines.push_back(std::move(line));
  }
  first_line.push_back(lines.size());
  const std::vector<pipeline::Translation> out = service.translate(pair, options, lines);
  Json answer = Json::object();
  Json translated = Json::array(), alts = Json::array(), detected = Json::array();
  for (size_t i = 0; i < texts.size(); ++i) {
    Json text, text_alts;
    answer_text({out.begin() + first_line[i], out.begin() + first_line[i + 1]}, alternatives, text,
                text_alts);
    translated.push_back(text);
    alts.push_back(text_alts);
    detected.push_back(detected_json(detected_source));
  }
  answer["translatedText"] = is_array ? translated : translated[0];
  if (alternatives > 0) answer["alternatives"] = is_array ? alts : alts[0];
  if (detect) answer["detectedLanguage"] = is_array ? detected : detected[0];
  return answer;
}

Json detect_response(const TranslationService& service, const Json& request) {
  bool is_array = false;
  const DetectedLanguage detected =
      detect_language(service.models(), joined(texts_of(service, request, is_array)));
  if (!detected.language.empty()) return Json::array({detected_json(detected)});
  // Not told: the source language of the models serving the most pairs, not measured.
  std::map<std::string, int> pairs_of;
  std::string language;
  for (const LanguagePair& p : service.models().pairs()) {
    if (++pairs_of[p.source] > pairs_of[language]) language = p.source;
  }
  return Json::array({detected_json({language, 0})});
}

}  // namespace serve
