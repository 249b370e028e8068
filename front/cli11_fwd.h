// CLI11's classes by name only: a header that mentions them includes this, and only the files that call
// CLI11 include <CLI/CLI.hpp>, whose validator objects cost every file that includes it seconds to compile.
#pragma once

namespace CLI {
class App;
class Formatter;
class Option;
class ParseError;
}  // namespace CLI
