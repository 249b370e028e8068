#include "models/convert/release_languages.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "models/convert/json_file.h"
#include "models/model_error.h"

namespace models {

namespace {

std::string trim_line(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The value after `key` on a README line "* KEY VALUE", if it is one language tag.
std::string single_tag_after(const std::string& line, const std::string& key) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const std::string value = trim_line(line.substr(at + key.size()));
  return is_language_tag(value) ? value : "";
}

}  // namespace

LanguagePair languages_from_tokenizer_config(const std::string& path) {
  if (!convert_detail::path_exists(path)) return {};
  const nlohmann::json j = convert_detail::read_json_object(path, "tokenizer configuration");
  const auto tag = [&](const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() && is_language_tag(it->get<std::string>())
               ? it->get<std::string>()
               : std::string();
  };
  return {tag("source_lang"), tag("target_lang")};
}

LanguagePair languages_from_release_readme(const std::string& path) {
  if (!convert_detail::path_exists(path)) return {};
  std::istringstream in(convert_detail::read_text_file(path, "release README"));
  LanguagePair stated, linked;
  std::string line;
  while (std::getline(in, line)) {
    if (stated.first.empty()) stated.first = single_tag_after(line, "source language(s):");
    if (stated.second.empty()) stated.second = single_tag_after(line, "target language(s):");
    const size_t zip = line.find(".zip)");
    if (linked.first.empty() && line.find("download:") != std::string::npos && zip != std::string::npos) {
      const std::string url = line.substr(0, zip);
      const size_t file = url.find_last_of('/');
      if (file != std::string::npos) linked = languages_from_model_name(url.substr(0, file));
    }
  }
  return {stated.first.empty() ? linked.first : stated.first,
          stated.second.empty() ? linked.second : stated.second};
}

void apply_languages(ModelDescription& d, const LanguagePair& found, const ConvertOptions& options) {
  if (!found.first.empty()) d.source_lang = found.first;
  if (!found.second.empty()) d.target_lang = found.second;
  if (!options.source_lang.empty()) d.source_lang = options.source_lang;
  if (!options.target_lang.empty()) d.target_lang = options.target_lang;
}

}  // namespace models
