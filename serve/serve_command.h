// `nmt serve`: a local HTTP server that speaks LibreTranslate's API (docs/serve.md).
#pragma once

#include "serve/serve_options.h"

namespace serve {

// Serves until SIGTERM, SIGINT or SIGHUP, then answers the requests in flight and returns 0.
int run_serve(const ServeOptions& options);

}  // namespace serve
