// HTTP GETs through libcurl for the hub client: redirects followed by hand so the token goes to the hub's
// host only, resumable downloads (Range), bounded retries with backoff, and a stall limit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "core/error.h"

namespace hub {

// A failed request: `status` is the HTTP status, 0 when no answer came (no network, a timeout, a cut).
class HttpError : public core::Error {
 public:
  HttpError(const std::string& what, long status) : core::Error(what), status_(status) {}
  long status() const { return status_; }

 private:
  long status_;
};

// Environment variables that tune the transfers (tests shorten them; docs/models.md).
constexpr const char* kLowSpeedSecondsEnv = "NMT_HUB_STALL_SECONDS";
constexpr const char* kRetryDelayEnv = "NMT_HUB_RETRY_DELAY_MS";

struct HttpSettings {
  std::string token;  // sent as "Authorization: Bearer" to token_origin only, never to a redirect target
  std::string token_origin;  // scheme://host:port of the hub
  long connect_timeout_seconds = 20;
  long stall_seconds = 30;  // a transfer slower than kStallBytesPerSecond for this long fails (and retries)
  int attempts = 4;         // tries per request, for 5xx, 429, timeouts and cut connections
  long first_retry_delay_ms = 1000;  // doubled after each failed try
  // The defaults above with kLowSpeedSecondsEnv and kRetryDelayEnv applied.
  static HttpSettings from_environment();
};

constexpr long kStallBytesPerSecond = 1024;
constexpr int kMaxRedirects = 10;

// scheme://host:port of `url` (the default port filled in); "" when it is not a URL curl can parse.
std::string url_origin(const std::string& url);

// The body of a GET of `url` (redirects followed), at most `max_bytes`; retried as settings say.
// Throws HttpError.
std::string get_text(const std::string& url, const HttpSettings& settings, size_t max_bytes);

// Downloads `url` into `partial`: appends to what is there with a Range request (a server that ignores
// Range restarts it), retries and resumes as settings say. `progress` gets the bytes in the file after
// every chunk. Throws HttpError; the partial file stays for the next try.
void download(const std::string& url, const std::filesystem::path& partial, const HttpSettings& settings,
              const std::function<void(uint64_t)>& progress);

}  // namespace hub
