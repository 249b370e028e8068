// The scalar-level pieces of the YAML subset marian_yaml.h reads: quoting, comments, flow lists, lines.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace models {
namespace yaml {

std::string trim(const std::string& s);

// Reads a quoted scalar starting at s[i] (the quote); leaves i after the closing quote.
std::string quoted(const std::string& s, size_t& i);

// Removes a trailing " # comment" from a plain scalar.
std::string strip_comment(const std::string& s);

// After a quoted scalar: only spaces and an optional comment may follow.
void expect_end(const std::string& s, size_t i);

// The items of "[a, b, ...]".
std::vector<std::string> flow_list(const std::string& raw);

// Lines without a BOM and without '\r' (core::split_lines).
std::vector<std::string> yaml_lines(const std::string& text);

// Blank, comment or document marker.
bool skippable(const std::string& line);

}  // namespace yaml
}  // namespace models
