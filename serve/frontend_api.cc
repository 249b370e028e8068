#include "serve/frontend_api.h"

#include "serve/file_translation.h"

namespace serve {

namespace {

constexpr int kFrontendTimeoutMs = 500;  // LibreTranslate's: how long its page waits after a keystroke

}  // namespace

nlohmann::json frontend_settings_json(const ModelSet& models, const ServeOptions& options,
                                      bool keys_required) {
  const std::string target = models.pairs().empty() ? "" : models.pairs().front().target;
  return {{"charLimit", options.max_chars},
          {"frontendTimeout", kFrontendTimeoutMs},
          {"apiKeys", keys_required},
          {"keyRequired", keys_required},
          {"suggestions", false},
          {"filesTranslation", true},
          {"supportedFilesFormat", supported_file_extensions()},
          {"language",
           {{"source", {{"code", "auto"}, {"name", "Auto Detect"}}},
            {"target", {{"code", target}, {"name", language_name(target)}}}}}};
}

nlohmann::json spec_json(const std::vector<RouteInfo>& routes) {
  nlohmann::json paths = nlohmann::json::object();
  for (const RouteInfo& r : routes) {
    std::string method = r.method;
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    paths[r.path][method] = {{"summary", r.summary}, {"responses", {{"200", {{"description", "OK"}}}}}};
  }
  return {{"swagger", "2.0"},
          {"info",
           {{"title", "nmt serve"},
            {"version", "1"},
            {"description", "LibreTranslate's API and nmt's own, served by `nmt serve`"}}},
          {"paths", paths}};
}

}  // namespace serve
