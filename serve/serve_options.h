// `nmt serve`'s settings: where it listens, which models it loads, and the bounds that keep one client
// from taking the server (docs/serve.md lists them with their defaults).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/glossary.h"

namespace serve {

struct ServeOptions {
  // -m, each once; empty: every installed model and the bundled one (front/model_catalog.h)
  std::vector<std::string> model_dirs;
  std::string pivot = "en";  // without -m: pairs no model translates go through this language
  bool no_pivot = false;     // without -m: direct pairs only
  // Without -m: bytes of installed models kept loaded (serve/model_cache.h); a few dozen int8 OPUS-MT models.
  std::uint64_t max_models_memory = std::uint64_t{4} << 30;
  std::string host = "127.0.0.1";                     // loopback unless asked
  int port = 5000;                                    // 0: any free port (printed on stderr)
  int threads = 0;                                    // per replica; 0: the cores shared among them
  int replicas = 0;                                   // translators on one model; 0: front/core_split.h
  std::size_t max_body_bytes = std::size_t{1} << 20;  // 413 beyond
  std::size_t max_chars = 20000;                      // characters of text per request; 400 beyond
  std::size_t max_items = 1000;                       // texts in one request's q array; 400 beyond
  int max_connections = 64;               // connections served at once; more wait for a free thread
  std::size_t max_queued_requests = 256;  // requests waiting for the translator; 429 beyond
  int request_timeout_s = 30;             // a request not translated by then: 503
  int read_timeout_s = 5;                 // a client that stops sending (slowloris)
  int receive_timeout_s = 30;             // a client sending one request, headers and body, this long
  int batch_wait_ms = 5;                  // how long the first request waits for company
  int max_batch_tokens = 4000;            // estimated source tokens per batch
  std::string api_keys_file;              // one key a line; empty: no key needed
  std::string cors_origin = "*";          // Access-Control-Allow-Origin, as LibreTranslate's; empty: none
  std::string glossary;                   // --glossary: terms every request obeys (docs/glossary.md)
  std::shared_ptr<const pipeline::Glossary> glossary_terms;  // read from it at start
};

}  // namespace serve
