#include "cli/commands/usage.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace cli {
namespace {

bool parse_long(const std::string& text, long* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtol(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size() && text.find_first_of(" \t") == std::string::npos;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "nmt translate" for a subcommand, "nmt" for the app itself.
std::string command_name(const CLI::App& command) {
  return command.get_parent() == nullptr ? "nmt" : "nmt " + command.get_name();
}

}  // namespace

CLI::Option* int_in_range(CLI::Option* option, long lo, long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  option->description(option->get_description() + " (" + range + ")");
  option->type_name("N");
  option->check(CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        long value = 0;
        if (parse_long(text, &value) && value >= lo && value <= hi) return "";
        return "must be a whole number in " + range + ", got '" + text + "'";
      },
      ""));
  return option;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  // A guess must keep part of what was typed: "-x" is no typo of "-h", nor "x" of "h".
  const std::size_t letters = word.size() - std::min(word.size(), word.find_first_not_of('-'));
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d >= letters) continue;
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> names = {"--help", "--version"};
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& n : option->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : option->get_snames()) names.push_back("-" + n);
  }
  return names;
}

std::string describe_parse_error(const CLI::ParseError& error, const CLI::App& command) {
  const std::string name = command_name(command);
  const std::string help = "see `" + name + " --help`";
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // The extras are the unparsed arguments; report the first.
    std::vector<std::string> extras = command.remaining();
    const std::string word = extras.empty() ? std::string() : extras.front();
    if (word.size() > 1 && word[0] == '-') {
      const std::string flag = word.substr(0, word.find('='));
      const std::string guess = closest_match(flag, flag_names(command));
      return "unknown option '" + flag + "' for `" + name + "`" +
             (guess.empty() ? "" : " (did you mean `" + guess + "`?)") + "; " + help;
    }
    return "unexpected argument '" + word + "' for `" + name + "`; " + help;
  }
  const std::string what = error.what();
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    return what + "; " + help;  // "--beam-size: must be a whole number in 1..256, got 'abc'"
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    const std::size_t colon = what.find(':');
    return "option " + (colon == std::string::npos ? what : what.substr(0, colon)) + " needs a value; " +
           help;
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    return "missing argument for `" + name + "`: " + what + "; " + help;
  }
  return "bad command line for `" + name + "`: " + what + "; " + help;
}

}  // namespace cli
