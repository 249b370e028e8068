// A model package named by URL: a .zip of a model directory, such as an OPUS-MT Marian release
// (https://object.pouta.csc.fi/OPUS-MT-models/en-de/opus-2020-02-26.zip). Downloaded resumably into the
// download cache, then unpacked for the converter. See docs/models.md.
#pragma once

#include <filesystem>
#include <string>

#include "models/hub/http_client.h"
#include "models/hub/hub_repo.h"

namespace hub {

// At most this many bytes unpacked, and this many members: a package is a model, not a disk filler.
constexpr uint64_t kMaxUnpackedBytes = 8ull << 30;
constexpr uint64_t kMaxPackageMembers = 1000;

// CACHE/url-SHA/ for `url` (SHA: the sha256 of the URL, so one URL resumes its own partial file).
std::filesystem::path url_cache_dir(const std::string& url, const std::filesystem::path& cache);

// Downloads `url` into DIR/package.zip (through package.zip.partial, resumed), DIR = url_cache_dir. Throws
// DownloadError naming the URL.
std::filesystem::path fetch_package(const std::string& url, const std::filesystem::path& cache,
                                    const HttpSettings& settings, const DownloadProgress& progress);

// Unpacks the zip's files into `dir` (created), flat: directories inside are dropped, so a package with a
// top folder unpacks the same as one without. Refuses (DownloadError) a member named "..", absolute, or
// twice, and a package over the limits above.
void unpack_zip(const std::filesystem::path& zip, const std::filesystem::path& dir);

}  // namespace hub
