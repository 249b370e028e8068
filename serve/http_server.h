// The HTTP side of `nmt serve` (cpp-httplib): one table of routes, request fields from JSON or forms,
// API keys, CORS, limits, and errors as LibreTranslate's {"error": msg}.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "serve/api_keys.h"
#include "serve/file_translation.h"
#include "serve/idle_memory.h"
#include "serve/serve_options.h"
#include "serve/translation_service.h"

namespace serve {

class BoundedServer;
struct Route;

class HttpServer {
 public:
  HttpServer(TranslationService& service, const ServeOptions& options, ApiKeys keys);
  ~HttpServer();

  // Binds host:port (port 0: any free one) and returns the port; throws std::runtime_error when it cannot.
  int bind();
  // Serves until stop(); returns once the requests in flight are answered.
  void run();
  // Safe from another thread: stops accepting; the requests in flight are answered, a file translation
  // with 503 (its download would die with the server).
  void stop();

 private:
  std::vector<Route> routes();
  void add_routes();

  TranslationService& service_;
  const ServeOptions& options_;
  ApiKeys keys_;
  FileStore files_;         // POST /translate_file's results, for GET /download_file
  IdleMemory idle_memory_;  // returns freed memory when the server goes idle after large requests
  std::atomic<bool> stopping_{false};
  std::unique_ptr<BoundedServer> server_;
};

}  // namespace serve
