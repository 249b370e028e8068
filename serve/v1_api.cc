#include "serve/v1_api.h"

#include <memory>

#include "core/text_lines.h"
#include "core/utf8_text.h"
#include "front/attention_svg.h"
#include "front/jsonl_input.h"
#include "front/jsonl_output.h"
#include "pipeline/attention_translation.h"
#include "pipeline/option_table.h"
#include "pipeline/option_text.h"
#include "serve/api_error.h"

namespace serve {

namespace {

std::string param(const std::map<std::string, std::string>& params, const std::string& name) {
  const auto it = params.find(name);
  if (it == params.end()) throw ApiError(400, "Invalid request: missing " + name + " parameter");
  if (!core::is_valid_utf8(it->second))
    throw ApiError(400, "Invalid request: " + name + " is not valid UTF-8");
  return it->second;
}

// The pair's options with the table options of `params` put over them.
pipeline::TranslateOptions request_options(const LanguagePair& pair,
                                           const std::map<std::string, std::string>& params) {
  pipeline::TranslateOptions options = pair.options;
  for (const auto& [name, text] : params) {
    if (name == "source" || name == "target" || name == "api_key") continue;
    const pipeline::OptionSpec* spec = nullptr;
    for (const pipeline::OptionSpec& s : pipeline::option_table()) {
      if (s.field == name) spec = &s;
    }
    if (spec == nullptr || !spec->changes_output || spec->set == nullptr || name.rfind("sampling.", 0) == 0 ||
        name == "target_lang" || name == "glossary" || name == "terms") {
      throw ApiError(400, "Invalid request: unknown parameter " + name +
                              " (options are the output-changing fields of `nmt translate`, e.g. "
                              "beam_size, n_best, alignment, word_scores, min_confidence)");
    }
    const std::optional<pipeline::OptionValue> value = pipeline::parse_option_text(*spec, text);
    const std::string rule =
        value ? pipeline::range_error(*spec, *value) : "must be a " + pipeline::range_text(*spec);
    if (!rule.empty()) throw ApiError(400, "Invalid request: " + name + " " + rule + ", got " + text);
    spec->set(options, *value);
  }
  return options;
}

}  // namespace

std::string v1_translate(TranslationService& service, const std::map<std::string, std::string>& params,
                         const std::string& body) {
  const LanguagePair& pair = service.pair(param(params, "source"), param(params, "target"));
  const pipeline::TranslateOptions options = request_options(pair, params);
  try {
    pair.translator->check(options);
  } catch (const pipeline::OptionError& e) {
    throw ApiError(400, "Invalid request: " + std::string(e.what()));
  }
  if (body.empty()) throw ApiError(400, "Invalid request: the body holds no JSON lines");
  std::vector<std::string> texts;
  std::vector<pipeline::LineControls> controls;
  std::vector<std::string> errors;
  // The last line's LF is optional, as in a file.
  for (const std::string& line :
       core::split_lines(body.back() == '\n' ? body.substr(0, body.size() - 1) : body)) {
    front::JsonlRequest request = front::parse_jsonl_request(line, *pair.translator, options);
    texts.push_back(std::move(request.text));  // a malformed line translates as a blank one, as in the CLI
    controls.push_back(std::move(request.controls));
    errors.push_back(std::move(request.error));
  }
  const std::vector<pipeline::Translation> out = service.translate(pair, options, texts, controls);
  std::string answer;
  for (size_t i = 0; i < out.size(); ++i) {
    answer += errors[i].empty()
                  ? front::translation_json(out[i], pair.translator->tokenizer(), options.n_best > 1)
                  : front::error_json(errors[i]);
    answer += "\n";
  }
  return answer;
}

std::string v1_attention_svg(TranslationService& service, const std::map<std::string, std::string>& params) {
  std::string text = param(params, "q");
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  service.check_characters({text});
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ApiError(400, "Invalid request: q is blank");
  const LanguagePair& pair = service.pair(param(params, "source"), param(params, "target"));
  pipeline::TranslateOptions options = pair.options;
  options.split_sentences = false;  // one sentence is drawn, as by `nmt attention`
  // Owned by the task: a task still running when the request times out must not write into this frame.
  auto svg = std::make_shared<std::string>();
  service.run_alone([svg, pair, text, options] {
    models::AttentionRequest request;
    request.cross = true;
    const pipeline::AttentionTranslation t =
        pipeline::translate_with_attention(*pair.translator, text, options, request);
    *svg = front::attention_svg(t, text, front::AttentionView{});
  });
  return *svg;
}

}  // namespace serve
