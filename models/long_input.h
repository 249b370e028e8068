// Lines longer than the model's positions are split, never truncated: at sentence ends first,
// then at clause punctuation, then at spaces, and only as a last resort between characters.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace models {

// Pieces of `line` (in order, trimmed, none empty) each with count(piece) <= limit, where count gives
// the number of model tokens of a piece. Requires limit >= 2 (room for one character plus EOS).
std::vector<std::string> split_long_line(const std::string& line, int limit,
                                         const std::function<int(const std::string&)>& count);

}  // namespace models
