// A request's fields as one JSON object, whatever way the client sent them: a JSON body, a urlencoded or
// multipart form, the query string. The body is read here, through cpp-httplib's content reader, so the
// server's own bounds (--max-body, the receive deadline) apply to forms as to any body.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace httplib {
struct Request;
struct Response;
class ContentReader;
}  // namespace httplib

namespace serve {

struct UploadedFile {
  std::string filename;
  std::string bytes;
};

struct RequestData {
  nlohmann::json fields = nlohmann::json::object();  // q given twice in a form: an array
  std::map<std::string, UploadedFile> files;         // a multipart form's parts that carry a filename
  std::string raw_body;                              // an endpoint's body it takes unparsed (/v1/translate)
};

// The query string's fields only.
RequestData query_fields(const httplib::Request& req);

// The body read (ApiError 413 over `max_body` bytes, 400 when the client stops sending) and its fields
// over the query string's. A body is JSON when its media type says so (in any case) or, sent as a form,
// when it parses as a JSON object (`curl -d '{...}'` sends JSON labelled as a form). ApiError 400 for
// malformed JSON, JSON nested too deep, or JSON that is not an object.
RequestData read_request(const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& reader, size_t max_body);

// The body as read, for endpoints that take it raw (/v1/translate's JSON lines).
std::string read_raw_body(const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader, size_t max_body);

}  // namespace serve
