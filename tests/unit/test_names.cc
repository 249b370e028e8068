// Every test case's name survives catch_discover_tests: ctest runs each case by passing its name back to
// Catch2 as a test spec, so a name that CMake splits (`;`, unbalanced brackets) or Catch2 parses (`\`,
// `"`, `*` at an end, a leading `~`, `#` or `-`, trimmed spaces) matches no case and its entry fails
// (`-w NoTests`, CMakeLists.txt).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace {

// Why ctest cannot address `name`, or "" when it can. CatchAddTests escapes `,`, `[` and `]` for Catch2,
// but CMake lists nest in brackets, so an unbalanced one joins names; `*` is a wildcard only at an end.
std::string unaddressable(const std::string& name) {
  if (name.empty()) return "empty";
  if (name.front() == ' ' || name.back() == ' ') return "leading or trailing space";
  if (name.front() == '~' || name.front() == '#') return "leading ~ or #";
  if (name.front() == '-') return "leading - (Catch2 reads it as an option)";
  if (name.front() == '*' || name.back() == '*') return "leading or trailing *";
  int depth = 0;
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) return "control character";
    if (c == ';' || c == '\\' || c == '"') return std::string("contains '") + c + "'";
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (depth < 0) return "unbalanced brackets";
  }
  return depth == 0 ? "" : "unbalanced brackets";
}

}  // namespace

TEST_CASE("every test case's name can be passed back by ctest", "[names]") {
  std::vector<std::string> bad;
  for (const auto& test_case : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    const std::string why = unaddressable(test_case.name);
    if (!why.empty()) bad.push_back(test_case.name + " (" + why + ")");
  }
  CAPTURE(bad);
  CHECK(bad.empty());
}

TEST_CASE("the name rule refuses what CMake or Catch2 would mangle", "[names]") {
  for (const char* name : {"a name, with commas: and colons", "x W^T [out, in]", "FILE* sources"}) {
    CAPTURE(name);
    CHECK(unaddressable(name).empty());
  }
  for (const char* name : {"a; b", "a\\b", "say \"hi\"", "*wild", "wild*", "~not", "#file", " padded",
                           "padded ", "a [b", "a] [b", "line\nbreak", ""}) {
    CAPTURE(name);
    CHECK_FALSE(unaddressable(name).empty());
  }
}
