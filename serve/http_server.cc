#include "serve/http_server.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "core/json_depth.h"
#include "serve/api_error.h"
#include "serve/libretranslate_api.h"
#include "serve/page.h"
#include "serve/v1_api.h"

namespace serve {

namespace {

using Json = nlohmann::json;
using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

constexpr size_t kMaxJsonDepth = 8;  // a request nests 2 levels (q's array)

void send_json(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

// The request's fields: a JSON body's object, else its form or query fields (q given twice: an array).
Json request_fields(const httplib::Request& req) {
  if (req.get_header_value("Content-Type").find("application/json") != std::string::npos) {
    if (core::json_nests_deeper_than(req.body, kMaxJsonDepth))
      throw ApiError(400,
                     "Invalid request: JSON nested more than " + std::to_string(kMaxJsonDepth) + " levels");
    Json j;
    try {
      j = Json::parse(req.body);
    } catch (const Json::exception& e) {
      const std::string what = e.what();
      const size_t words = what.find("] ");
      throw ApiError(
          400, "Invalid request: not valid JSON: " + what.substr(words == std::string::npos ? 0 : words + 2));
    }
    if (!j.is_object()) throw ApiError(400, "Invalid request: expected a JSON object");
    return j;
  }
  Json fields = Json::object();
  const auto add = [&fields](const std::string& name, const std::string& value) {
    if (name == "q" && fields.contains("q")) {
      if (!fields["q"].is_array()) fields["q"] = Json::array({fields["q"]});
      fields["q"].push_back(value);
    } else {
      fields[name] = value;
    }
  };
  for (const auto& [name, value] : req.params) add(name, value);
  for (const auto& [name, file] : req.files) add(name, file.content);  // multipart/form-data
  return fields;
}

// The URL's query fields only (httplib adds a form body's fields to req.params; /v1's body is JSON lines).
std::map<std::string, std::string> query_params(const httplib::Request& req) {
  const size_t mark = req.target.find('?');
  httplib::Params query;
  if (mark != std::string::npos) httplib::detail::parse_query_text(req.target.substr(mark + 1), query);
  std::map<std::string, std::string> params;
  for (const auto& [name, value] : query) params[name] = value;
  return params;
}

}  // namespace

HttpServer::HttpServer(TranslationService& service, const ServeOptions& options, ApiKeys keys)
    : service_(service),
      options_(options),
      keys_(std::move(keys)),
      server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  const size_t threads = static_cast<size_t>(options.max_connections);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options.max_body_bytes);
  s.set_read_timeout(options.read_timeout_s, 0);
  s.set_write_timeout(options.read_timeout_s, 0);
  s.set_keep_alive_timeout(options.read_timeout_s);
  // What httplib answers itself (404, 413 over the body limit, 400 for a malformed request) in our shape.
  s.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = "bad request (HTTP " + std::to_string(res.status) + ")";
    if (res.status == 404) message = "no such endpoint: see docs/serve.md (POST /translate, GET /languages)";
    if (res.status == 405) message = "method not allowed on this endpoint";
    if (res.status == 413)
      message = "the request body is larger than the " + std::to_string(options_.max_body_bytes) +
                " bytes a request may hold (--max-body)";
    send_json(res, res.status, {{"error", message}});
  });
  if (!options.cors_origin.empty()) {
    s.set_default_headers({{"Access-Control-Allow-Origin", options.cors_origin},
                           {"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                           {"Access-Control-Allow-Headers", "Content-Type"}});
    s.Options(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  }
  add_routes();
}

HttpServer::~HttpServer() = default;

void HttpServer::add_routes() {
  httplib::Server& s = *server_;
  // Every handler answers {"error"} with the ApiError's status, 500 for anything else.
  const auto guarded = [](std::function<void(const httplib::Request&, httplib::Response&)> handler) {
    return [handler](const httplib::Request& req, httplib::Response& res) {
      try {
        handler(req, res);
      } catch (const ApiError& e) {
        send_json(res, e.status(), {{"error", e.what()}});
      } catch (const std::bad_alloc&) {
        send_json(res, 500, {{"error", "out of memory"}});
      } catch (const std::exception& e) {
        send_json(res, 500, {{"error", std::string("translation failed: ") + e.what()}});
      }
    };
  };
  const auto check_key = [this](const Json& fields) {
    if (!keys_.required()) return;
    const auto key = fields.find("api_key");
    if (key == fields.end() || !key->is_string() || !keys_.accepts(key->get<std::string>()))
      throw ApiError(403, "Invalid API key");
  };
  s.Post("/translate", guarded([this, check_key](const httplib::Request& req, httplib::Response& res) {
           const Json fields = request_fields(req);
           check_key(fields);
           send_json(res, 200, translate_response(service_, fields));
         }));
  s.Post("/detect", guarded([this, check_key](const httplib::Request& req, httplib::Response& res) {
           const Json fields = request_fields(req);
           check_key(fields);
           send_json(res, 200, detect_response(service_, fields));
         }));
  s.Post("/translate_file", guarded([this, check_key](const httplib::Request& req, httplib::Response& res) {
           if (!req.is_multipart_form_data() || !req.has_file("file"))
             throw ApiError(400, "Invalid request: missing file parameter (a multipart form with a file)");
           Json fields = Json::object();
           for (const auto& [name, part] : req.files) {
             if (name != "file") fields[name] = part.content;
           }
           check_key(fields);
           const httplib::MultipartFormData file = req.get_file_value("file");
           const std::string host = req.has_header("Host") ? req.get_header_value("Host") : options_.host;
           send_json(res, 200,
                     translate_file_response(service_, files_, file.filename, file.content, fields,
                                             "http://" + host));
         }));
  s.Get(R"(/download_file/([0-9a-f]{32}))",
        guarded([this](const httplib::Request& req, httplib::Response& res) {
          const std::optional<StoredFile> file = files_.get(req.matches[1]);
          if (!file) {
            throw ApiError(404, "Invalid request: no such file (the server keeps the latest " +
                                    std::to_string(FileStore::kMaxFiles) + " translated files)");
          }
          std::string name;  // quotes, backslashes and control characters would break the header
          for (char c : file->filename) {
            if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) name += c;
          }
          res.set_header("Content-Disposition", "attachment; filename=\"" + name + "\"");
          res.set_content(file->bytes, "application/octet-stream");
        }));
  s.Get("/languages", guarded([this](const httplib::Request&, httplib::Response& res) {
          send_json(res, 200, service_.models().languages_json());
        }));
  s.Get("/health", guarded([this](const httplib::Request&, httplib::Response& res) {
          send_json(res, 200, {{"status", "ok"}, {"merged_requests", service_.merged_requests()}});
        }));
  s.Post("/v1/translate", guarded([this, check_key](const httplib::Request& req, httplib::Response& res) {
           const std::map<std::string, std::string> params = query_params(req);
           check_key(Json(params));
           res.set_content(v1_translate(service_, params, req.body), "application/x-ndjson");
         }));
  s.Post("/v1/attention", guarded([this, check_key](const httplib::Request& req, httplib::Response& res) {
           const Json fields = request_fields(req);
           check_key(fields);
           std::map<std::string, std::string> params;
           for (const auto& [name, value] : fields.items()) {
             if (!value.is_string()) throw ApiError(400, "Invalid request: " + name + " must be a string");
             params[name] = value.get<std::string>();
           }
           res.set_content(v1_attention_svg(service_, params), "image/svg+xml");
         }));
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(page_html(), "text/html; charset=utf-8");
  });
}

int HttpServer::bind() {
  const int port = options_.port == 0
                       ? server_->bind_to_any_port(options_.host)
                       : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    throw std::runtime_error("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                             " (in use, or not an address of this machine)");
  }
  return port;
}

void HttpServer::run() { server_->listen_after_bind(); }

void HttpServer::stop() { server_->stop(); }

}  // namespace serve
