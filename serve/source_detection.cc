#include "serve/source_detection.h"

#include "pipeline/language_identifier.h"
#include "serve/api_error.h"

namespace serve {

DetectedLanguage detect_language(const ModelSet& models, const std::string& text) {
  const pipeline::LanguageGuess guess = pipeline::guess_language(text);
  if (guess.language.empty()) return {};
  for (const LanguagePair& p : models.pairs()) {
    if (!p.source.empty() && pipeline::same_language(guess.language, p.source))
      return {p.source, guess.percent};
  }
  return {guess.language, guess.percent};
}

LanguagePair auto_pair(const ModelSet& models, const std::string& text, const std::string& target,
                       DetectedLanguage& detected) {
  const DetectedLanguage found = detect_language(models, text);
  if (!found.language.empty()) {
    const LanguagePair* p = models.find(found.language, target);
    if (p == nullptr) {
      throw ApiError(400, language_name(target) + " (" + target +
                              ") is not available as a target language from " +
                              language_name(found.language) + " (" + found.language + "): the text is " +
                              std::to_string(found.confidence) + "% " + language_name(found.language));
    }
    detected = found;
    return models.use(*p);
  }
  const LanguagePair* first = models.find("auto", target);
  if (first == nullptr) throw ApiError(400, "no model translates into " + target);
  detected = {first->source, 0};
  return models.use(*first);
}

}  // namespace serve
