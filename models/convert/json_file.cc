#include "models/convert/json_file.h"

#include "models/convert/convert_common.h"
#include "models/model_error.h"

namespace models::convert_detail {

nlohmann::json read_json_file(const std::string& path, std::string_view what) {
  const std::string text = read_text_file(path, what);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(path + ": not valid JSON: " + e.what());
  }
}

nlohmann::json read_json_object(const std::string& path, std::string_view what, std::string_view shape) {
  nlohmann::json j = read_json_file(path, what);
  if (!j.is_object()) throw ModelError(path + ": expected " + std::string(shape));
  return j;
}

}  // namespace models::convert_detail
