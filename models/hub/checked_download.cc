#include "models/hub/checked_download.h"

#include <system_error>

#include "models/hub/file_digest.h"
#include "models/hub/hub_repo.h"

namespace hub {

namespace fs = std::filesystem;

void download_checked(const ExpectedDownload& file, const std::string& subject, const HttpSettings& settings,
                      const std::function<void(uint64_t)>& progress) {
  if (file.sha256.empty()) {
    throw DownloadError(subject + ": the listing states no sha256 for " + file.url + "; nothing installed");
  }
  std::error_code ec;
  const auto matches = [&](const fs::path& p) {
    return (file.size == 0 || fs::file_size(p, ec) == file.size) && sha256_hex(p) == file.sha256;
  };
  if (fs::is_regular_file(file.dest, ec) && matches(file.dest)) {
    if (progress) progress(fs::file_size(file.dest, ec));
    return;
  }
  const fs::path partial = file.dest.string() + ".partial";
  if (file.size != 0 && fs::exists(partial, ec) && fs::file_size(partial, ec) > file.size)
    fs::remove(partial, ec);
  try {
    if (file.size == 0 || !fs::exists(partial, ec) || fs::file_size(partial, ec) < file.size)
      download(file.url, partial, settings, progress);
  } catch (const HttpError& e) {
    if (e.status() >= 400 && e.status() < 500) fs::remove(partial, ec);  // nothing there to resume
    throw DownloadError(subject + ": " + file.url + ": " +
                        (e.status() ? "HTTP " + std::to_string(e.status()) : std::string(e.what())) + "; " +
                        offline_advice());
  }
  if (!matches(partial)) {
    const uint64_t got = fs::file_size(partial, ec);
    const std::string actual = sha256_hex(partial);
    fs::remove(partial, ec);
    throw DownloadError(subject + ": " + file.url + " does not match the listing's checksum (" +
                        std::to_string(got) + " bytes" +
                        (file.size ? ", expected " + std::to_string(file.size) : std::string()) +
                        "; sha256 " + actual + ", expected " + file.sha256 + "); nothing installed");
  }
  fs::rename(partial, file.dest, ec);
  if (ec) throw DownloadError(file.dest.string() + ": cannot store the download (" + ec.message() + ")");
}

}  // namespace hub
