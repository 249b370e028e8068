// The command line in our words: plain value types in --help, our own range checks, CLI11's parse
// errors rewritten as one "nmt: ..." line, and "did you mean" suggestions.
#pragma once

#include <string>
#include <vector>

#include "front/cli11_fwd.h"

namespace cli {

// An integer option outside the options table (pipeline/option_table.h) shown as `N` whose help ends in
// "(LO..HI)"; anything else is refused with "must be a whole number in LO..HI, got 'abc'".
CLI::Option* int_in_range(CLI::Option* option, long lo, long hi);

// The candidate closest to `word` by edit distance, if close enough to be a likely typo; else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// Every long and short flag name of `app` ("--beam-size", "-b", ...), for suggestions.
std::vector<std::string> flag_names(const CLI::App& app);

// One line (no "nmt: " prefix, no newline) for a CLI11 parse error raised while parsing `app`, whose
// deepest parsed subcommand is `command` (the app itself if none). Names what was wrong and what is
// allowed, with a suggestion for an unknown flag.
std::string describe_parse_error(const CLI::ParseError& error, const CLI::App& command);

}  // namespace cli
