// LibreTranslate's API (https://libretranslate.com/docs) as its clients use it: each handler takes the
// request's fields as one JSON object (from a JSON body or a form) and returns the answer's JSON, or
// throws ApiError with LibreTranslate's status code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "serve/translation_service.h"

namespace serve {

// POST /translate: q (a string or an array of strings), source (a code or "auto"), target, format
// (text), alternatives (0..), api_key (checked before). {"translatedText", "alternatives"[,
// "detectedLanguage"]}; with an array q, each field is an array of the answers. source "auto" detects the
// language of all of q at once (serve/source_detection.h).
nlohmann::json translate_response(TranslationService& service, const nlohmann::json& request);

// POST /detect: q -> [{"confidence", "language"}], the language CLD2 tells with the share of the text in it
// (0..100); when it cannot tell, the source language of the models serving the most pairs, confidence 0.
nlohmann::json detect_response(const TranslationService& service, const nlohmann::json& request);

// The one place that knows which `format` values /translate takes: "" when it takes `format`, else why
// not.
std::string format_error(const std::string& format);

}  // namespace serve
