#include "models/json_fields.h"

#include <cmath>
#include <cstdio>

#include "models/model_error.h"

namespace models {

namespace {

// 1e-12, 0, 1e+300: six significant digits, never 300 of them nor 0.000000 for a small bound.
std::string readable(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

}  // namespace

JsonObject::JsonObject(const nlohmann::json& value, std::string where, std::string path)
    : value_(value), where_(std::move(where)), path_(std::move(path)) {
  if (!value_.is_object()) {
    throw ModelError(where_ + ": " + (path_.empty() ? std::string("top level") : path_) +
                     ": expected a JSON object, got " + value_.type_name());
  }
}

void JsonObject::fail(const std::string& key, const std::string& problem) const {
  const std::string name = path_.empty() ? key : path_ + "." + key;
  throw ModelError(where_ + ": " + name + ": " + problem);
}

const nlohmann::json& JsonObject::field(const std::string& key) const {
  auto it = value_.find(key);
  if (it == value_.end()) fail(key, "missing");
  return *it;
}

int64_t JsonObject::integer(const std::string& key, int64_t min, int64_t max) const {
  const auto& v = field(key);
  if (!v.is_number_integer()) fail(key, std::string("expected an integer, got ") + v.type_name());
  const bool is_unsigned = v.is_number_unsigned();
  if (is_unsigned && v.get<uint64_t>() > static_cast<uint64_t>(max)) {
    fail(key, std::to_string(v.get<uint64_t>()) + " out of range [" + std::to_string(min) + ", " +
                  std::to_string(max) + "]");
  }
  const int64_t x = v.get<int64_t>();
  if (x < min || x > max) {
    fail(key, std::to_string(x) + " out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return x;
}

double JsonObject::number(const std::string& key, double min, double max) const {
  const auto& v = field(key);
  if (!v.is_number()) fail(key, std::string("expected a number, got ") + v.type_name());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    fail(key, readable(x) + " out of range [" + readable(min) + ", " + readable(max) + "]");
  }
  return x;
}

bool JsonObject::boolean(const std::string& key) const {
  const auto& v = field(key);
  if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + v.type_name());
  return v.get<bool>();
}

std::string JsonObject::string(const std::string& key) const {
  const auto& v = field(key);
  if (!v.is_string()) fail(key, std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

std::string JsonObject::string_or_empty(const std::string& key) const {
  const auto& v = field(key);
  if (v.is_null()) return "";
  if (!v.is_string()) fail(key, std::string("expected a string or null, got ") + v.type_name());
  return v.get<std::string>();
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& allowed) const {
  const std::string s = string(key);
  for (const auto& a : allowed) {
    if (s == a) return s;
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail(key, "'" + s + "' is not supported (expected one of: " + list + ")");
}

JsonObject JsonObject::object(const std::string& key) const {
  const auto& v = field(key);
  if (!v.is_object()) fail(key, std::string("expected an object, got ") + v.type_name());
  return JsonObject(v, where_, path_.empty() ? key : path_ + "." + key);
}

const nlohmann::json& JsonObject::array(const std::string& key) const {
  const auto& v = field(key);
  if (!v.is_array()) fail(key, std::string("expected an array, got ") + v.type_name());
  return v;
}

void JsonObject::expect_keys(const std::vector<std::string>& known,
                             const std::vector<std::string>& optional) const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    bool ok = false;
    for (const auto& k : known) ok = ok || it.key() == k;
    for (const auto& k : optional) ok = ok || it.key() == k;
    if (!ok) fail(it.key(), "unknown field");
  }
  for (const auto& k : known) field(k);
}

}  // namespace models
