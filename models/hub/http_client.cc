#include "models/hub/http_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

namespace hub {

namespace {

constexpr size_t kMaxErrorBody = 512;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

long env_number(const char* name, long fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  return (*end == '\0' && n >= 0) ? n : fallback;
}

// Where one hop's body goes: the file (2xx) or a short error text (anything else).
struct Sink {
  CURL* curl = nullptr;
  FILE* file = nullptr;         // download()
  std::string* text = nullptr;  // get_text()
  size_t max_text = 0;
  bool decided = false, keep = false, too_big = false;
  std::string error_body;
  uint64_t in_file = 0;
  const std::function<void(uint64_t)>* progress = nullptr;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  Sink& sink = *static_cast<Sink*>(user);
  const size_t n = size * count;
  if (!sink.decided) {
    sink.decided = true;
    long status = 0;
    curl_easy_getinfo(sink.curl, CURLINFO_RESPONSE_CODE, &status);
    sink.keep = status == 200 || status == 206;
    if (status == 200 && sink.file != nullptr && sink.in_file > 0) {  // Range ignored: start over
      if (std::fflush(sink.file) != 0 || ::ftruncate(fileno(sink.file), 0) != 0) return 0;
      std::rewind(sink.file);
      sink.in_file = 0;
    }
  }
  if (!sink.keep) {
    sink.error_body.append(data,
                           std::min(n, kMaxErrorBody - std::min(kMaxErrorBody, sink.error_body.size())));
    return n;
  }
  if (sink.text != nullptr) {
    if (sink.text->size() + n > sink.max_text) {
      sink.too_big = true;
      return 0;
    }
    sink.text->append(data, n);
    return n;
  }
  if (std::fwrite(data, 1, n, sink.file) != n) return 0;
  sink.in_file += n;
  if (sink.progress != nullptr && *sink.progress) (*sink.progress)(sink.in_file);
  return n;
}

bool retryable_curl(CURLcode code) {
  return code == CURLE_OPERATION_TIMEDOUT || code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR ||
         code == CURLE_SEND_ERROR || code == CURLE_GOT_NOTHING || code == CURLE_COULDNT_CONNECT;
}

bool retryable_status(long status) { return status >= 500 || status == 429 || status == 408; }

// One request, redirects followed by hand; throws HttpError (status 0 without an answer).
void request_once(const std::string& first_url, const HttpSettings& settings, Sink& sink) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw HttpError("cannot start libcurl", 0);
  std::string url = first_url;
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    CURL* c = curl.get();
    curl_easy_reset(c);
    sink.curl = c;
    sink.decided = false;
    sink.error_body.clear();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // by hand: the token must not follow
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, settings.connect_timeout_seconds);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, kStallBytesPerSecond);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, settings.stall_seconds);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "nmt-models/1");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_slist* headers = nullptr;
    if (!settings.token.empty() && url_origin(url) == settings.token_origin) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + settings.token).c_str());
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    const std::string range = std::to_string(sink.in_file) + "-";
    if (sink.file != nullptr && sink.in_file > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    const CURLcode code = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (sink.too_big) throw HttpError(url + ": the answer is larger than expected", 0);
    if (code != CURLE_OK) {
      throw HttpError(std::string(curl_easy_strerror(code)) + " (" + url_origin(url) + ")",
                      retryable_curl(code) ? -1 : 0);
    }
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300 && status < 400) {
      char* location = nullptr;
      curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location);
      if (location == nullptr)
        throw HttpError(url + ": HTTP " + std::to_string(status) + " without a Location", status);
      url = location;
      continue;
    }
    if (status == 200 || status == 206) return;
    if (status == 416 && sink.file != nullptr) return;  // the partial file is whole already
    throw HttpError("HTTP " + std::to_string(status), status);
  }
  throw HttpError(first_url + ": more than " + std::to_string(kMaxRedirects) + " redirects", 0);
}

// request_once() with retries: transient failures wait first_retry_delay_ms, doubling.
void request(const std::string& url, const HttpSettings& settings, Sink& sink) {
  long delay = settings.first_retry_delay_ms;
  for (int attempt = 1;; ++attempt) {
    try {
      request_once(url, settings, sink);
      return;
    } catch (const HttpError& e) {
      const bool transient = e.status() == -1 || retryable_status(e.status());
      if (!transient || attempt >= settings.attempts) {
        if (e.status() == -1) throw HttpError(e.what(), 0);
        throw;
      }
    }
    if (sink.text != nullptr) sink.text->clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    delay *= 2;
  }
}

}  // namespace

HttpSettings HttpSettings::from_environment() {
  HttpSettings s;
  s.stall_seconds = std::max(1L, env_number(kLowSpeedSecondsEnv, s.stall_seconds));
  s.first_retry_delay_ms = env_number(kRetryDelayEnv, s.first_retry_delay_ms);
  return s;
}

std::string url_origin(const std::string& url) {
  global_init();
  std::unique_ptr<CURLU, void (*)(CURLU*)> u(curl_url(), curl_url_cleanup);
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return "";
  std::string parts[3];
  const CURLUPart which[3] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
  for (int i = 0; i < 3; ++i) {
    char* part = nullptr;
    if (curl_url_get(u.get(), which[i], &part, CURLU_DEFAULT_PORT) != CURLUE_OK) return "";
    parts[i] = part;
    curl_free(part);
  }
  return parts[0] + "://" + parts[1] + ":" + parts[2];
}

std::string get_text(const std::string& url, const HttpSettings& settings, size_t max_bytes) {
  global_init();
  std::string body;
  Sink sink;
  sink.text = &body;
  sink.max_text = max_bytes;
  request(url, settings, sink);
  return body;
}

void download(const std::string& url, const std::filesystem::path& partial, const HttpSettings& settings,
              const std::function<void(uint64_t)>& progress) {
  global_init();
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(partial.c_str(), "ab"), std::fclose);
  if (!file) throw core::Error(partial.string() + ": cannot open for writing");
  std::setvbuf(file.get(), nullptr, _IONBF, 0);  // each chunk reaches the file: Ctrl-C loses none of it
  Sink sink;
  sink.file = file.get();
  std::error_code ec;
  sink.in_file = std::filesystem::file_size(partial, ec);
  if (ec) sink.in_file = 0;
  sink.progress = &progress;
  request(url, settings, sink);
  if (std::fflush(file.get()) != 0 || ::fsync(fileno(file.get())) != 0) {
    throw core::Error(partial.string() + ": cannot write the download");
  }
}

}  // namespace hub
