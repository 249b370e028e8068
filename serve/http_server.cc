#include "serve/http_server.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "serve/api_error.h"
#include "serve/frontend_api.h"
#include "serve/http_connection.h"
#include "serve/libretranslate_api.h"
#include "serve/page.h"
#include "serve/request_fields.h"
#include "serve/v1_api.h"

namespace serve {

using Json = nlohmann::json;
using RouteHandler = std::function<void(const httplib::Request&, RequestData&, httplib::Response&)>;

// One endpoint: what GET /spec says of it, the regex cpp-httplib matches, whether it needs an API key
// (with --api-keys), whether it takes its body unparsed, and its handler.
struct Route {
  RouteInfo info;
  std::string pattern;
  bool needs_key = false;
  bool raw_body = false;
  RouteHandler handle;
};

namespace {

void send_json(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

std::string url_encoded(const std::string& text) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Runs a handler so that whatever it throws becomes this request's {"error"}: the status of an ApiError,
// 500 for anything else. No request ends the process.
void answer_guarded(httplib::Response& res, const std::function<void()>& handle) {
  try {
    handle();
  } catch (const ApiError& e) {
    send_json(res, e.status(), {{"error", e.what()}});
  } catch (const std::bad_alloc&) {
    send_json(res, 500, {{"error", "out of memory: the request is too large for this server now"}});
  } catch (const std::exception& e) {
    send_json(res, 500, {{"error", std::string("translation failed: ") + e.what()}});
  } catch (...) {
    send_json(res, 500, {{"error", "translation failed"}});
  }
}

// Bytes the request's body and its answer hold: what its handling allocated and freed, about.
size_t bytes_of(const httplib::Request& req, const httplib::Response& res) {
  return std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) + res.body.size();
}

}  // namespace

HttpServer::HttpServer(TranslationService& service, const ServeOptions& options, ApiKeys keys)
    : service_(service),
      options_(options),
      keys_(std::move(keys)),
      server_(std::make_unique<BoundedServer>(std::chrono::seconds(options.receive_timeout_s),
                                              options.max_connections)) {
  httplib::Server& s = *server_;
  s.set_payload_max_length(options.max_body_bytes);
  s.set_read_timeout(options.read_timeout_s, 0);
  s.set_write_timeout(options.read_timeout_s, 0);
  s.set_keep_alive_timeout(options.read_timeout_s);
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send_json(res, 500, {{"error", "the request failed inside the server"}});
  });
  if (!options.cors_origin.empty()) {
    s.set_default_headers({{"Access-Control-Allow-Origin", options.cors_origin},
                           {"Access-Control-Allow-Methods", "GET, POST, OPTIONS"},
                           {"Access-Control-Allow-Headers", "Authorization, Content-Type"}});
    s.Options(".*", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  }
  add_routes();
}

HttpServer::~HttpServer() = default;

std::vector<Route> HttpServer::routes() {
  return {
      {{"POST", "/translate", "Translate q (a string or an array) from source (or auto) into target"},
       "/translate",
       true,
       false,
       [this](const httplib::Request&, RequestData& r, httplib::Response& res) {
         send_json(res, 200, translate_response(service_, r.fields));
       }},
      {{"POST", "/detect", "Detect the language of q"},
       "/detect",
       true,
       false,
       [this](const httplib::Request&, RequestData& r, httplib::Response& res) {
         send_json(res, 200, detect_response(service_, r.fields));
       }},
      {{"POST", "/translate_file", "Translate an uploaded file (multipart: file, source, target)"},
       "/translate_file",
       true,
       false,
       [this](const httplib::Request& req, RequestData& r, httplib::Response& res) {
         const auto file = r.files.find("file");
         if (file == r.files.end())
           throw ApiError(400, "Invalid request: missing file parameter (a multipart form with a file)");
         const std::string host = req.has_header("Host") ? req.get_header_value("Host") : options_.host;
         // With keys on, the download needs the key too: the URL carries the one this upload gave.
         const std::string key_suffix =
             keys_.required() ? "?api_key=" + url_encoded(r.fields["api_key"].get<std::string>()) : "";
         const Json answer =
             translate_file_response(service_, files_, file->second.filename, file->second.bytes, r.fields,
                                     "http://" + host, key_suffix);
         if (stopping_)
           throw ApiError(503,
                          "the server is shutting down: the translated file would not stay to be "
                          "downloaded; retry later");
         send_json(res, 200, answer);
       }},
      {{"GET", "/download_file/{token}", "The file a /translate_file answer points to, once"},
       R"(/download_file/([0-9a-f]{32}))",
       true,
       false,
       [this](const httplib::Request& req, RequestData&, httplib::Response& res) {
         const std::optional<StoredFile> file = files_.take(req.matches[1]);
         if (!file) {
           throw ApiError(404,
                          "Invalid request: no such file (each translated file is downloaded once, within " +
                              std::to_string(FileStore::kTimeToLive.count()) + " minutes)");
         }
         std::string name;  // quotes, backslashes and control characters would break the header
         for (char c : file->filename) {
           if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) name += c;
         }
         res.set_header("Content-Disposition", "attachment; filename=\"" + name + "\"");
         res.set_content(file->bytes, "application/octet-stream");
       }},
      {{"GET", "/languages", "Every language served, each with the targets it translates into"},
       "/languages",
       false,
       false,
       [this](const httplib::Request&, RequestData&, httplib::Response& res) {
         send_json(res, 200, service_.models().languages_json());
       }},
      {{"GET", "/frontend/settings", "Settings for LibreTranslate's web front end"},
       "/frontend/settings",
       false,
       false,
       [this](const httplib::Request&, RequestData&, httplib::Response& res) {
         send_json(res, 200, frontend_settings_json(service_.models(), options_, keys_.required()));
       }},
      {{"POST", "/suggest", "Suggestions are not taken (403)"},
       "/suggest",
       false,
       false,
       [](const httplib::Request&, RequestData&, httplib::Response&) {
         throw ApiError(403, "Suggestions are disabled on this server.");
       }},
      {{"GET", "/health", "Status and the requests merged into shared batches"},
       "/health",
       false,
       false,
       [this](const httplib::Request&, RequestData&, httplib::Response& res) {
         send_json(res, 200,
                   {{"status", "ok"},
                    {"merged_requests", service_.merged_requests()},
                    {"memory_returned", idle_memory_.trims()}});
       }},
      {{"POST", "/v1/translate", "JSON lines in, as nmt translate --input-format jsonl; options by query"},
       "/v1/translate",
       true,
       true,
       [this](const httplib::Request&, RequestData& r, httplib::Response& res) {
         std::map<std::string, std::string> params;
         for (const auto& [name, value] : r.fields.items()) {
           if (!value.is_string()) throw ApiError(400, "Invalid request: " + name + " given twice");
           params[name] = value.get<std::string>();
         }
         res.set_content(v1_translate(service_, params, r.raw_body), "application/x-ndjson");
       }},
      {{"POST", "/v1/attention", "The cross-attention heatmap SVG of one sentence"},
       "/v1/attention",
       true,
       false,
       [this](const httplib::Request&, RequestData& r, httplib::Response& res) {
         std::map<std::string, std::string> params;
         for (const auto& [name, value] : r.fields.items()) {
           if (!value.is_string()) throw ApiError(400, "Invalid request: " + name + " must be a string");
           params[name] = value.get<std::string>();
         }
         res.set_content(v1_attention_svg(service_, params), "image/svg+xml");
       }},
      {{"GET", "/spec", "This description (Swagger 2.0)"},
       "/spec",
       false,
       false,
       [this](const httplib::Request&, RequestData&, httplib::Response& res) {
         std::vector<RouteInfo> infos;
         for (const Route& route : routes()) infos.push_back(route.info);
         send_json(res, 200, spec_json(infos));
       }},
      {{"GET", "/", "A page to try translations in a browser"},
       "/",
       false,
       false,
       [](const httplib::Request&, RequestData&, httplib::Response& res) {
         res.set_content(page_html(), "text/html; charset=utf-8");
       }},
  };
}

void HttpServer::add_routes() {
  BoundedServer& s = *server_;
  std::vector<std::pair<std::regex, std::string>> methods;  // each path's regex and its method, for 405
  for (Route& route : routes()) {
    methods.emplace_back(std::regex(route.pattern), route.info.method);
    const auto check_key = [this, needs = route.needs_key](const Json& fields) {
      if (!needs || !keys_.required()) return;
      const auto key = fields.find("api_key");
      if (key == fields.end() || !key->is_string() || !keys_.accepts(key->get<std::string>()))
        throw ApiError(403, "Invalid API key");
    };
    if (route.info.method == "GET") {
      s.Get(route.pattern,
            [this, check_key, handle = route.handle](const httplib::Request& req, httplib::Response& res) {
              IdleMemory::Request in_flight(idle_memory_);
              answer_guarded(res, [&] {
                RequestData data = query_fields(req);
                check_key(data.fields);
                handle(req, data, res);
              });
              in_flight.count(bytes_of(req, res));
            });
      continue;
    }
    s.Post(route.pattern,
           [this, check_key, handle = route.handle, raw = route.raw_body](
               const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
             IdleMemory::Request in_flight(idle_memory_);
             answer_guarded(res, [&] {
               RequestData data;
               if (raw) {
                 data = query_fields(req);
                 data.raw_body = read_raw_body(req, res, reader, options_.max_body_bytes);
               } else {
                 data = read_request(req, res, reader, options_.max_body_bytes);
               }
               check_key(data.fields);
               handle(req, data, res);
             });
             in_flight.count(bytes_of(req, res));
           });
  }
  // What cpp-httplib answers itself (no route, a malformed request, a body over the limit) in our shape; a
  // known path asked with another method is 405 with the methods it takes.
  s.set_error_handler([this, methods](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string allowed;
    for (const auto& [pattern, method] : methods) {
      if (std::regex_match(req.path, pattern)) allowed += (allowed.empty() ? "" : ", ") + method;
    }
    // A method no route takes (PUT, DELETE) may fail reading its body first: 400 from cpp-httplib.
    const bool other_method = req.method != "GET" && req.method != "HEAD" && req.method != "POST";
    if ((res.status == 404 || other_method) && !allowed.empty()) {
      res.set_header("Allow", allowed);
      send_json(res, 405,
                {{"error", "method " + req.method + " not allowed on " + req.path + " (" + allowed + ")"}});
      return;
    }
    std::string message = "bad request (HTTP " + std::to_string(res.status) + ")";
    if (res.status == 404) message = "no such endpoint: see GET /spec (POST /translate, GET /languages)";
    if (res.status == 413)
      message = "the request body is larger than the " + std::to_string(options_.max_body_bytes) +
                " bytes a request may hold (--max-body)";
    send_json(res, res.status, {{"error", message}});
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
  server_->widen_backlog();
  return port;
}

void HttpServer::run() { server_->listen_after_bind(); }

void HttpServer::stop() {
  stopping_ = true;
  server_->stop();
}

}  // namespace serve
