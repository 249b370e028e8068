// The HTTP side of `nmt serve` (cpp-httplib): routes, request fields from JSON or forms, API keys, CORS,
// body and time limits, and errors as LibreTranslate's {"error": msg}.
#pragma once

#include <memory>
#include <string>

#include "serve/api_keys.h"
#include "serve/file_translation.h"
#include "serve/serve_options.h"
#include "serve/translation_service.h"

namespace httplib {
class Server;
}

namespace serve {

class HttpServer {
 public:
  HttpServer(TranslationService& service, const ServeOptions& options, ApiKeys keys);
  ~HttpServer();

  // Binds host:port (port 0: any free one) and returns the port; throws std::runtime_error when it cannot.
  int bind();
  // Serves until stop(); returns once the requests in flight are answered.
  void run();
  // Safe from another thread.
  void stop();

 private:
  void add_routes();

  TranslationService& service_;
  const ServeOptions& options_;
  ApiKeys keys_;
  FileStore files_;  // POST /translate_file's results, for GET /download_file
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace serve
