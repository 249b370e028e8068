// One file by URL into the download cache, checked against the sha256 (and size) its listing states:
// through NAME.partial, resumed, retried (http_client), renamed once whole and checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "models/hub/http_client.h"

namespace hub {

struct ExpectedDownload {
  std::string url;
  std::filesystem::path dest;
  std::string sha256;  // lower-case hex; required
  uint64_t size = 0;   // 0: not stated
};

// Downloads `file` (a whole, matching file already at dest is kept). `subject` starts every error message.
// `progress` gets the bytes in the file so far. Throws DownloadError: the HTTP status or network failure,
// or a size or sha256 that does not match (the download deleted; "nothing installed").
void download_checked(const ExpectedDownload& file, const std::string& subject, const HttpSettings& settings,
                      const std::function<void(uint64_t)>& progress);

}  // namespace hub
