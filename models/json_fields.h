// Strict reading of JSON objects: every field typed and range-checked, unknown keys refused,
// errors name the file and the field ("model/model.json: config.d_model: expected ...").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace models {

class JsonObject {
 public:
  // `where` names the file, `path` the object inside it ("config").
  JsonObject(const nlohmann::json& value, std::string where, std::string path);

  int64_t integer(const std::string& key, int64_t min, int64_t max) const;
  double number(const std::string& key, double min, double max) const;
  bool boolean(const std::string& key) const;
  std::string string(const std::string& key) const;
  std::string string_or_empty(const std::string& key) const;  // null -> ""
  std::string choice(const std::string& key, const std::vector<std::string>& allowed) const;
  JsonObject object(const std::string& key) const;
  const nlohmann::json& array(const std::string& key) const;
  // Throws if the object has a key in neither list or lacks one of `known` (`optional` may be absent).
  void expect_keys(const std::vector<std::string>& known,
                   const std::vector<std::string>& optional = {}) const;
  bool has(const std::string& key) const { return value_.contains(key); }

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

 private:
  const nlohmann::json& field(const std::string& key) const;

  const nlohmann::json& value_;
  std::string where_;
  std::string path_;
};

}  // namespace models
