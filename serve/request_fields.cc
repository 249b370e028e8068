#include "serve/request_fields.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>

#include "core/json_depth.h"
#include "serve/api_error.h"

namespace serve {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxJsonDepth = 8;  // a request nests 2 levels (q's array)
constexpr size_t kMaxParts = 32;     // a multipart form's parts: file, source, target, api_key, ...

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

void add_field(Json& fields, const std::string& name, const std::string& value) {
  if (name == "q" && fields.contains("q")) {
    if (!fields["q"].is_array()) fields["q"] = Json::array({fields["q"]});
    fields["q"].push_back(value);
  } else {
    fields[name] = value;
  }
}

Json parse_json_object(const std::string& body) {
  if (core::json_nests_deeper_than(body, kMaxJsonDepth))
    throw ApiError(400,
                   "Invalid request: JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels");
  Json j;
  try {
    j = Json::parse(body);
  } catch (const Json::exception& e) {
    const std::string what = e.what();
    const size_t words = what.find("] ");
    throw ApiError(
        400, "Invalid request: not valid JSON: " + what.substr(words == std::string::npos ? 0 : words + 2));
  }
  if (!j.is_object()) throw ApiError(400, "Invalid request: expected a JSON object");
  return j;
}

// A form body that is a JSON object: curl -d '{...}' without -H 'Content-Type: application/json'.
bool looks_like_json_object(const std::string& body) {
  const size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || body[start] != '{') return false;
  if (core::json_nests_deeper_than(body, kMaxJsonDepth)) return false;
  return Json::accept(body);
}

// Reading failed: over the size bound (cpp-httplib set 413), or the client stopped or ran out of time.
[[noreturn]] void read_failed(const httplib::Response& res, size_t max_body) {
  if (res.status == 413)
    throw ApiError(413, "the request body is larger than the " + std::to_string(max_body) +
                            " bytes a request may hold (--max-body)");
  throw ApiError(400, "Invalid request: the body was not received in full (malformed, or sent too slowly)");
}

}  // namespace

RequestData query_fields(const httplib::Request& req) {
  RequestData data;
  const size_t mark = req.target.find('?');
  if (mark == std::string::npos) return data;
  httplib::Params query;
  httplib::detail::parse_query_text(req.target.substr(mark + 1), query);
  for (const auto& [name, value] : query) add_field(data.fields, name, value);
  return data;
}

std::string read_raw_body(const httplib::Request&, httplib::Response& res,
                          const httplib::ContentReader& reader, size_t max_body) {
  std::string body;
  bool over = false;  // a body without a Content-Length (chunked) is only measured as it comes
  const bool ok = reader([&body, &over, max_body](const char* data, size_t n) {
    over = body.size() + n > max_body;
    if (!over) body.append(data, n);
    return !over;
  });
  if (over) res.status = 413;
  if (!ok) read_failed(res, max_body);
  return body;
}

RequestData read_request(const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& reader, size_t max_body) {
  RequestData data = query_fields(req);
  if (req.is_multipart_form_data()) {
    std::vector<std::pair<httplib::MultipartFormData, std::string>> parts;
    size_t total = 0;
    const bool ok = reader(
        [&parts](const httplib::MultipartFormData& part) {
          if (parts.size() == kMaxParts) return false;
          parts.push_back({part, ""});
          return true;
        },
        [&parts, &total, max_body](const char* bytes, size_t n) {
          total += n;
          if (total > max_body) return false;
          parts.back().second.append(bytes, n);
          return true;
        });
    if (total > max_body) res.status = 413;
    if (!ok && parts.size() == kMaxParts)
      throw ApiError(400, "Invalid request: a form of more than " + std::to_string(kMaxParts) + " parts");
    if (!ok) read_failed(res, max_body);
    for (auto& [part, bytes] : parts) {
      if (part.filename.empty()) {
        add_field(data.fields, part.name, bytes);
      } else {
        data.files[part.name] = {part.filename, std::move(bytes)};
      }
    }
    return data;
  }
  const std::string body = read_raw_body(req, res, reader, max_body);
  const std::string type = lowercase(req.get_header_value("Content-Type"));
  if (type.find("application/json") != std::string::npos || looks_like_json_object(body)) {
    Json object = parse_json_object(body);
    for (auto& [name, value] : object.items()) data.fields[name] = std::move(value);
    return data;
  }
  httplib::Params form;
  httplib::detail::parse_query_text(body, form);
  for (const auto& [name, value] : form) add_field(data.fields, name, value);
  return data;
}

}  // namespace serve
