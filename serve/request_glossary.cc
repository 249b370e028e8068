#include "serve/request_glossary.h"

#include <memory>

#include "front/jsonl_input.h"
#include "serve/api_error.h"

namespace serve {

pipeline::TranslateOptions glossary_options(pipeline::TranslateOptions options, const ServeOptions& serve,
                                            const nlohmann::json& request) {
  const auto field = request.find("glossary");
  const bool has_field = field != request.end() && !field->is_null() &&
                         !(field->is_string() && field->get<std::string>().empty());
  if (!serve.glossary_terms && !has_field) return options;
  auto glossary = std::make_shared<pipeline::Glossary>();
  if (serve.glossary_terms) *glossary = *serve.glossary_terms;
  if (has_field) {
    nlohmann::json value = *field;
    if (value.is_string()) {  // a form field holds the object as JSON text
      try {
        value = nlohmann::json::parse(value.get<std::string>());
      } catch (const nlohmann::json::exception&) {
        throw ApiError(400, "Invalid request: glossary must be a JSON object of source term -> target");
      }
    }
    pipeline::Glossary terms;
    if (const std::string error = front::read_glossary_field(value, terms); !error.empty())
      throw ApiError(400, "Invalid request: " + error);
    glossary->merge(terms);
  }
  options.glossary_terms = std::move(glossary);
  return options;
}

}  // namespace serve
