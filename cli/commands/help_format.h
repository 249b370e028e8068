// --help as a reader sees it: every line fits the terminal (80 columns when not one), and the
// environment variables that change what a command does are listed at the end.
#pragma once

#include <memory>
#include <string>

#include "front/cli11_fwd.h"

namespace cli {

// The terminal's width on stdout, else 80.
std::size_t help_width();

// `text` broken at spaces into lines of at most `width` columns (longer words stay whole); its own line
// breaks are kept, and each continuation line repeats the indentation of the line it continues.
std::string wrap_text(const std::string& text, std::size_t width);

// A CLI11 formatter that wraps descriptions, option help and footers to `width` columns.
std::shared_ptr<CLI::Formatter> wrapping_formatter(std::size_t width);

// The "Environment:" epilog: NMT_MODEL and NMT_CPU, what they do and what they take.
extern const char* const kEnvironmentHelp;

}  // namespace cli
