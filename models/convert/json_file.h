// Converter inputs that are JSON files (config.json, vocab.json, metadata.json...): read, parsed, and
// refused with a ModelError naming the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace models::convert_detail {

// The file's JSON, whatever its shape; `what` names its role ("tokenizer configuration").
nlohmann::json read_json_file(const std::string& path, std::string_view what);

// The file's JSON, which must be an object; `shape` is what the refusal says was expected.
nlohmann::json read_json_object(const std::string& path, std::string_view what,
                                std::string_view shape = "a JSON object");

}  // namespace models::convert_detail
