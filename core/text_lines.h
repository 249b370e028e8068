// Text cut into lines, the one way every reader of line-based text does it: LF or CRLF ends a line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace core {

// Every '\n' separates two lines, so joining the result with '\n' gives the text back (less the '\r's):
// "a\nb\r\nc" -> {"a", "b", "c"}, "a\n" -> {"a", ""}, "" -> {""}. For text whose line structure is echoed
// back (a request's lines, a YAML file).
std::vector<std::string> split_lines(std::string_view text);

// The lines of a file: a last line needs no '\n', and the '\n' that ends the file starts no empty line:
// "a\nb\n" -> {"a", "b"}, "a\nb" -> {"a", "b"}, "\n" -> {""}, "" -> {}.
std::vector<std::string> file_lines(std::string_view text);

}  // namespace core
