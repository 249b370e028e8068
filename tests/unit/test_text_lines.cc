// core/text_lines: LF or CRLF ends a line; split_lines keeps the line structure, file_lines reads a file's.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/text_lines.h"

using Lines = std::vector<std::string>;

TEST_CASE("split_lines: every LF separates two lines, a CR before it goes", "[core][text]") {
  CHECK(core::split_lines("a\nb\r\nc") == Lines{"a", "b", "c"});
  CHECK(core::split_lines("") == Lines{""});
  CHECK(core::split_lines("a\n") == Lines{"a", ""});
  CHECK(core::split_lines("\n\n") == Lines{"", "", ""});
  CHECK(core::split_lines("a\rb") == Lines{"a\rb"});  // a lone CR ends nothing
}

TEST_CASE("file_lines: the LF that ends a file starts no line", "[core][text]") {
  CHECK(core::file_lines("a\nb\n") == Lines{"a", "b"});
  CHECK(core::file_lines("a\r\nb") == Lines{"a", "b"});
  CHECK(core::file_lines("") == Lines{});
  CHECK(core::file_lines("\n") == Lines{""});
  CHECK(core::file_lines("a\n\n") == Lines{"a", ""});
}
