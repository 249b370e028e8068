// `nmt serve`'s flags: the server's options (serve/serve_options.h) as a CLI11 subcommand. Here, beside
// main.cc, so that serve/ knows no command line and CLI11 compiles in one batch with the command table.
#pragma once

#include "front/cli11_fwd.h"
#include "serve/serve_options.h"

namespace app {

CLI::App* add_serve_command(CLI::App& app, serve::ServeOptions& options);

}  // namespace app
