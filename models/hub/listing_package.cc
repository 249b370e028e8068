#include "models/hub/listing_package.h"

#include <zlib.h>

#include <fstream>
#include <memory>
#include <system_error>

#include "core/atomic_file.h"
#include "models/hub/checked_download.h"
#include "models/hub/firefox_decoder_config.h"
#include "models/hub/tar_package.h"
#include "models/hub/url_package.h"

namespace hub {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUnpackedDir = "unpacked";

// Decompresses a gzip attachment into `out`, at most kMaxUnpackedBytes.
void gunzip(const fs::path& in, const fs::path& out) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzopen(in.c_str(), "rb"), gzclose);
  if (!gz) throw DownloadError(in.string() + ": cannot open to decompress");
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  std::vector<char> buffer(1 << 20);
  uint64_t total = 0;
  for (int n; (n = gzread(gz.get(), buffer.data(), static_cast<unsigned>(buffer.size()))) != 0;) {
    if (n < 0) throw DownloadError(in.string() + ": not valid gzip data");
    total += static_cast<uint64_t>(n);
    if (total > kMaxUnpackedBytes) throw DownloadError(in.string() + ": decompresses to too much");
    file.write(buffer.data(), n);
  }
  file.close();
  if (!file) throw DownloadError(out.string() + ": cannot write");
}

}  // namespace

FetchedEntry fetch_listing_entry(const Listing& listing, const ListingEntry& entry, const fs::path& cache,
                                 const HttpSettings& settings, const DownloadProgress& progress) {
  FetchedEntry fetched;
  fetched.cache = url_cache_dir(listing.url + "#" + entry.code + "@" + entry.version, cache);
  std::error_code ec;
  fs::create_directories(fetched.cache, ec);
  if (ec)
    throw DownloadError(fetched.cache.string() + ": cannot create the download cache (" + ec.message() + ")");
  uint64_t total = 0, done_before = 0;
  for (const ListingFile& f : entry.files) total += f.size;
  std::vector<fs::path> downloads;
  for (const ListingFile& f : entry.files) {
    const fs::path dest = fetched.cache / (f.name + (f.gzip ? ".gz" : ""));
    download_checked({f.url, dest, f.sha256, f.size}, entry.code, settings, [&](uint64_t in_file) {
      if (progress) progress(done_before + in_file, total);
    });
    const uint64_t size = fs::file_size(dest);
    done_before += size;
    fetched.files.push_back({dest.filename().string(), f.sha256, size});
    downloads.push_back(dest);
  }
  fetched.dir = fetched.cache / kUnpackedDir;
  fs::remove_all(fetched.dir, ec);
  if (listing.kind == ListingKind::kTranslateLocally) {
    unpack_tar_gz(downloads.front(), fetched.dir);
    return fetched;
  }
  fs::create_directories(fetched.dir);
  for (size_t i = 0; i < entry.files.size(); ++i) {
    const fs::path out = fetched.dir / entry.files[i].name;
    if (entry.files[i].gzip) {
      gunzip(downloads[i], out);
    } else if (fs::create_hard_link(downloads[i], out, ec); ec) {
      fs::copy_file(downloads[i], out, fs::copy_options::overwrite_existing);
    }
  }
  core::write_file_atomically((fetched.dir / kDecoderConfigName).string(), firefox_decoder_yml(entry));
  return fetched;
}

}  // namespace hub
