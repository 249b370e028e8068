// nmt: neural machine translation on the CPU. Subcommands: translate, attention, serve, info, convert (and
// help).
// The only place where exceptions become exit codes (see cli/exit_codes.h).
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "app/serve_flags.h"
#include "cli/commands/attention_command.h"
#include "cli/commands/convert_command.h"
#include "cli/commands/help_format.h"
#include "cli/commands/help_markdown.h"
#include "cli/commands/info_command.h"
#include "cli/commands/models_command.h"
#include "cli/commands/shortlist_command.h"
#include "cli/commands/signals.h"
#include "cli/commands/standard_fds.h"
#include "cli/commands/translate_command.h"
#include "cli/commands/usage.h"
#include "cli/exit_codes.h"
#include "cli/io/io_error.h"
#include "cli/io/output_file.h"
#include "cli/memory_limit.h"
#include "core/error.h"
#include "models/model_error.h"
#include "serve/serve_command.h"

namespace {

// One row per command: its CLI11 subcommand (registered with its options), how it runs, and whether it
// loads a model (its help then lists the model's environment). The command list of help, errors and
// suggestions comes from here.
struct Command {
  CLI::App* app;
  std::function<int()> run;
  bool loads_model;
};

std::vector<std::string> command_names(const std::vector<Command>& commands) {
  std::vector<std::string> names;
  for (const Command& c : commands) names.push_back(c.app->get_name());
  names.push_back("help");
  return names;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

int unknown_command(const std::string& word, const std::vector<std::string>& names) {
  const std::string guess = cli::closest_match(word, names);
  std::cerr << "nmt: unknown command '" << cli::printable_path(word) << "'"
            << (guess.empty() ? "" : " (did you mean `" + guess + "`?)")
            << "; commands: " << joined(names, ", ") << "\n";
  return cli::kExitUsage;
}

// `nmt help [COMMAND]`: the help of the app or of one command, on stdout; `nmt help --markdown`: the
// reference of every command (docs/cli-reference.md).
int print_help(CLI::App& app, int argc, char** argv, const std::vector<std::string>& names) {
  if (argc < 3) {
    std::cout << app.help();
    return cli::kExitOk;
  }
  if (std::string(argv[2]) == "--markdown") {  // docs/cli-reference.md
    std::cout << cli::markdown_reference(app);
    return cli::kExitOk;
  }
  if (std::string(argv[2]) == "help") {  // help about help: the app's
    std::cout << app.help();
    return cli::kExitOk;
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == argv[2]) {
      std::cout << sub->help("nmt");
      return cli::kExitOk;
    }
  }
  return unknown_command(argv[2], names);
}

// Whatever went to std::cout must have arrived: a full disk or a closed stdout fails the command.
int with_stdout_written(int rc) {
  const bool failed_before = !std::cout;  // then errno still tells why, unless a later call changed it
  if (!failed_before) errno = 0;
  if (std::cout.flush()) return rc;
  int err = errno;
  const int flags = ::fcntl(STDOUT_FILENO, F_GETFL);
  if (flags != -1 && (flags & O_ACCMODE) == O_RDONLY) err = EBADF;  // closed: open_missing_standard_fds()
  if (err == EPIPE) return cli::kExitBrokenPipe;                    // the reader is gone, as in translate
  std::cerr << "nmt: error: " << cli::write_error_message("<stdout>", err) << "\n";
  return rc == cli::kExitOk ? cli::kExitFailure : rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (!cli::open_missing_standard_fds()) return cli::kExitFailure;
  cli::ignore_sigpipe();
  cli::install_termination_handlers();
  CLI::App app{"nmt: neural machine translation on the CPU", "nmt"};
  app.formatter(cli::wrapping_formatter(cli::help_width()));                     // commands inherit both
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // -b 5 -b 3: beam 3
  const std::string version = std::string("nmt ") + NMT_VERSION + " (git " + NMT_GIT_REVISION + ")";
  app.set_version_flag("--version", version, "Print the version and git revision, then exit");
  app.require_subcommand(1);
  cli::TranslateCommandOptions translate;
  std::string info_dir;
  cli::ConvertCommandOptions convert;
  cli::AttentionCommandOptions attention;
  serve::ServeOptions serve_options;
  cli::ShortlistCommandOptions shortlist;
  cli::ModelsCommandOptions models_options;
  const std::vector<Command> commands = {
      {cli::add_translate_command(app, translate),
       [&] { return with_stdout_written(cli::run_translate(translate)); }, true},
      {cli::add_info_command(app, info_dir), [&] { return with_stdout_written(cli::run_info(info_dir)); },
       true},
      {cli::add_convert_command(app, convert), [&] { return with_stdout_written(cli::run_convert(convert)); },
       false},
      {cli::add_attention_command(app, attention),
       [&] { return with_stdout_written(cli::run_attention(attention)); }, true},
      {app::add_serve_command(app, serve_options), [&] { return serve::run_serve(serve_options); }, true},
      {cli::add_shortlist_command(app, shortlist),
       [&] { return with_stdout_written(cli::run_shortlist(shortlist)); }, true},
      {cli::add_models_command(app, models_options),
       [&] { return with_stdout_written(cli::run_models(models_options)); }, false},
  };
  const std::vector<std::string> names = command_names(commands);
  // Set after the commands are added: CLI11 copies the app's footer into each command added later.
  app.footer(std::string("Run `nmt help COMMAND` or `nmt COMMAND --help` for a command's options.\n") +
             cli::kEnvironmentHelp);
  for (const Command& c : commands) {
    c.app->set_version_flag("--version", version, "Print the version and git revision, then exit");
    if (c.loads_model) {
      c.app->footer(c.app->get_footer() + (c.app->get_footer().empty() ? "" : "\n") + cli::kEnvironmentHelp);
    }
  }

  if (argc < 2) {  // nothing was asked, so nothing was done: the usage on stderr, as git and apt do
    std::cerr << app.help();
    return cli::kExitUsage;
  }
  const std::string first = argv[1];
  if (first == "help") return with_stdout_written(print_help(app, argc, argv, names));
  const Command* command = nullptr;
  if (!first.empty() && first[0] == '-' && first != "-h" && first != "--help" && first != "--version") {
    const std::string guess = cli::closest_match(first, {"--help", "--version"});
    std::cerr << "nmt: unknown option '" << cli::printable_path(first) << "' for `nmt`"
              << (guess.empty() ? "" : " (did you mean `" + guess + "`?)") << "; a command comes first: nmt "
              << joined(names, "|") << "\n";
    return cli::kExitUsage;
  }
  if (first.empty() || first[0] != '-') {
    for (const Command& c : commands) {
      if (c.app->get_name() == first) command = &c;
    }
    if (command == nullptr) return unknown_command(first, names);
  }
  CLI::App& parsed = command != nullptr ? *command->app : app;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return with_stdout_written(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::cerr << "nmt: " << cli::describe_parse_error(e, parsed) << "\n";
    return cli::kExitUsage;
  }
  try {
    if (command != nullptr) return command->run();
  } catch (const cli::BrokenPipe&) {
    return cli::kExitBrokenPipe;  // the reader is gone: nothing to say, nobody to say it to
  } catch (const core::UsageError& e) {
    std::cerr << "nmt: " << e.what() << "; see `nmt " << (command == nullptr ? "" : parsed.get_name() + " ")
              << "--help`\n";
    return cli::kExitUsage;
  } catch (const models::ModelError& e) {
    std::cerr << "nmt: error: " << e.what() << "\n";
    return cli::kExitModelError;
  } catch (const std::bad_alloc&) {
    std::cerr << "nmt: error: " << cli::not_enough_memory_message() << "\n";
    return cli::kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "nmt: error: " << e.what() << "\n";
    return cli::kExitFailure;
  }
  return cli::kExitOk;
}
