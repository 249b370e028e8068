// How deep a document's elements may nest. The readers walk their trees by recursion, one frame per level,
// and the libraries free some trees the same way: a tree deeper than this is refused (TooDeep) before any
// recursive walk, so no document can exhaust the stack.
#pragma once

#include <cstddef>
#include <pugixml.hpp>
#include <string>
#include <string_view>

#include "core/error.h"

namespace documents {

inline constexpr size_t kMaxNestingDepth = 1000;

// A document, or a package member, whose elements nest deeper than kMaxNestingDepth.
struct TooDeep : core::Error {
  using core::Error::Error;
};

// "WHERE: elements nested deeper than 1000 levels".
std::string too_deep_message(const std::string& where);

// The first element under `root` nested deeper than kMaxNestingDepth, or a null node; walked without
// recursion.
pugi::xml_node first_too_deep(const pugi::xml_node& root);

// The 1-based line of byte `offset` in `text`.
size_t line_at(std::string_view text, size_t offset);

}  // namespace documents
