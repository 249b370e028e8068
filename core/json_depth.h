// A scan of JSON text's bracket nesting, run before a DOM parser that would otherwise spend tens of bytes
// per level on deeply nested input (a 60 MB line of '[' takes gigabytes).
#pragma once

#include <cstddef>
#include <string_view>

namespace core {

// Whether `text` nests arrays/objects more than `max_depth` deep; brackets inside strings do not count.
// Malformed text is left to the parser.
bool json_nests_deeper_than(std::string_view text, std::size_t max_depth);

}  // namespace core
