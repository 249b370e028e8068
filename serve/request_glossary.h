// A request's terminology: the server's --glossary and the request's "glossary" field (an object of
// source term -> target forms, or that object as a form field's JSON text) over a pair's options.
#pragma once

#include <nlohmann/json.hpp>

#include "pipeline/translate_options.h"
#include "serve/serve_options.h"

namespace serve {

// `options` with the terms put over them; ApiError 400 for a malformed field.
pipeline::TranslateOptions glossary_options(pipeline::TranslateOptions options, const ServeOptions& serve,
                                            const nlohmann::json& request);

}  // namespace serve
