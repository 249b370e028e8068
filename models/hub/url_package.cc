#include "models/hub/url_package.h"

#include <zip.h>

#include <fstream>
#include <memory>
#include <set>
#include <vector>

#include "models/hub/file_digest.h"

namespace hub {

namespace fs = std::filesystem;

fs::path url_cache_dir(const std::string& url, const fs::path& cache) {
  return cache / ("url-" + sha256_of_text(url).substr(0, 32));
}

fs::path fetch_package(const std::string& url, const fs::path& cache, const HttpSettings& settings,
                       const DownloadProgress& progress) {
  const fs::path dir = url_cache_dir(url, cache);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw DownloadError(dir.string() + ": cannot create the download cache (" + ec.message() + ")");
  const fs::path partial = dir / "package.zip.partial";
  fs::remove(dir / "package.zip", ec);  // a package left by a failed install is fetched again
  try {
    download(url, partial, settings, [&](uint64_t in_file) {
      if (progress) progress(in_file, 0);
    });
  } catch (const HttpError& e) {
    if (e.status() >= 400 && e.status() < 500) fs::remove_all(dir, ec);  // nothing there to resume
    throw DownloadError(url + ": " +
                        (e.status() ? "HTTP " + std::to_string(e.status()) : std::string(e.what())) + "; " +
                        offline_advice());
  }
  const fs::path whole = dir / "package.zip";
  fs::rename(partial, whole, ec);
  if (ec) throw DownloadError(whole.string() + ": cannot store the download (" + ec.message() + ")");
  return whole;
}

void unpack_zip(const fs::path& zip_path, const fs::path& dir) {
  int code = 0;
  std::unique_ptr<zip_t, void (*)(zip_t*)> archive(zip_open(zip_path.c_str(), ZIP_RDONLY, &code),
                                                   zip_discard);
  if (!archive)
    throw DownloadError(zip_path.string() + ": not a zip archive (libzip error " + std::to_string(code) +
                        ")");
  const zip_int64_t members = zip_get_num_entries(archive.get(), 0);
  if (members < 0 || static_cast<uint64_t>(members) > kMaxPackageMembers) {
    throw DownloadError(zip_path.string() + ": more than " + std::to_string(kMaxPackageMembers) + " members");
  }
  fs::create_directories(dir);
  std::set<std::string> seen;
  uint64_t total = 0;
  std::vector<char> buffer(1 << 20);
  for (zip_int64_t i = 0; i < members; ++i) {
    zip_stat_t st;
    if (zip_stat_index(archive.get(), i, 0, &st) != 0 || st.name == nullptr) continue;
    const std::string name = st.name;
    if (name.empty() || name.back() == '/') continue;  // a directory
    if (name[0] == '/' || fs::path(name).lexically_normal().string().rfind("..", 0) == 0) {
      throw DownloadError(zip_path.string() + ": member '" + name + "' points outside the package");
    }
    const std::string flat = fs::path(name).filename().string();
    if (flat.empty() || flat == "." || flat == ".." || !seen.insert(flat).second) {
      throw DownloadError(zip_path.string() + ": member '" + name + "' is named twice or not a file name");
    }
    total += st.size;
    if (total > kMaxUnpackedBytes) throw DownloadError(zip_path.string() + ": unpacks to more than 8 GB");
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> member(zip_fopen_index(archive.get(), i, 0),
                                                             zip_fclose);
    if (!member) throw DownloadError(zip_path.string() + ": cannot read member '" + name + "'");
    std::ofstream out(dir / flat, std::ios::binary | std::ios::trunc);
    uint64_t written = 0;
    for (zip_int64_t n; (n = zip_fread(member.get(), buffer.data(), buffer.size())) > 0;) {
      out.write(buffer.data(), n);
      written += static_cast<uint64_t>(n);
    }
    out.close();
    if (!out || written != st.size) {
      throw DownloadError(zip_path.string() + ": member '" + name + "' is damaged or cannot be written to " +
                          dir.string());
    }
  }
}

}  // namespace hub
