// nmt: neural machine translation on the CPU. Subcommands: translate, info, convert.
// The only place where exceptions become exit codes (see cli/exit_codes.h).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/convert_command.h"
#include "cli/exit_codes.h"
#include "cli/info_command.h"
#include "cli/io_error.h"
#include "cli/output_file.h"
#include "cli/standard_fds.h"
#include "cli/translate_command.h"
#include "core/error.h"
#include "models/model_error.h"

int main(int argc, char** argv) {
  if (!cli::open_missing_standard_fds()) return cli::kExitFailure;
  cli::ignore_sigpipe();
  CLI::App app{"nmt: neural machine translation on the CPU"};
  app.set_version_flag("--version", std::string("nmt ") + NMT_VERSION);
  app.require_subcommand(1);
  cli::TranslateCommandOptions translate;
  CLI::App* translate_cmd = cli::add_translate_command(app, translate);
  std::string info_dir;
  CLI::App* info_cmd = cli::add_info_command(app, info_dir);
  cli::ConvertCommandOptions convert;
  CLI::App* convert_cmd = cli::add_convert_command(app, convert);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kExitUsage;
  }
  try {
    if (*translate_cmd) return cli::run_translate(translate);
    if (*info_cmd) return cli::run_info(info_dir);
    if (*convert_cmd) return cli::run_convert(convert);
  } catch (const cli::BrokenPipe&) {
    return cli::kExitBrokenPipe;  // the reader is gone: nothing to say, nobody to say it to
  } catch (const core::UsageError& e) {
    std::cerr << "nmt: " << e.what() << "\nRun with --help for more information.\n";
    return cli::kExitUsage;
  } catch (const models::ModelError& e) {
    std::cerr << "nmt: error: " << e.what() << "\n";
    return cli::kExitModelError;
  } catch (const std::bad_alloc&) {
    std::cerr << "nmt: error: out of memory\n";
    return cli::kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "nmt: error: " << e.what() << "\n";
    return cli::kExitFailure;
  }
  return cli::kExitOk;
}
