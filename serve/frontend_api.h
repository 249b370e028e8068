// The endpoints LibreTranslate's web front end and clients read to learn what a server offers:
// GET /frontend/settings and GET /spec (a Swagger 2.0 description of the routes).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/model_set.h"
#include "serve/serve_options.h"

namespace serve {

// One endpoint as GET /spec describes it; http_server.cc's route table holds them.
struct RouteInfo {
  std::string method;   // "GET" or "POST"
  std::string path;     // "/translate"; a download's token as "{token}"
  std::string summary;  // one line
};

// LibreTranslate's shape: charLimit, frontendTimeout, apiKeys, keyRequired, suggestions (false: nmt takes
// none), filesTranslation, supportedFilesFormat, language.source ("auto") and language.target (the first
// pair's target).
nlohmann::json frontend_settings_json(const ModelSet& models, const ServeOptions& options,
                                      bool keys_required);

nlohmann::json spec_json(const std::vector<RouteInfo>& routes);

}  // namespace serve
