// A listing entry's files fetched and laid out as a model directory nmt convert reads: translateLocally's
// .tar.gz package unpacked, or a Remote Settings model's attachments (gzip ones decompressed) with the
// decoder.yml Firefox's settings make.
#pragma once

#include <filesystem>
#include <vector>

#include "models/hub/hub_repo.h"
#include "models/hub/install_manifest.h"
#include "models/hub/model_listing.h"

namespace hub {

struct FetchedEntry {
  std::filesystem::path dir;        // what nmt convert reads
  std::filesystem::path cache;      // the entry's download directory: delete it once installed
  std::vector<ManifestFile> files;  // the downloads, each checked against the listing
};

// Downloads into CACHE/url-SHA/ (SHA of the listing URL, code and version: a second try resumes), each
// file checked against the sha256 and size the listing states. Throws DownloadError.
FetchedEntry fetch_listing_entry(const Listing& listing, const ListingEntry& entry,
                                 const std::filesystem::path& cache, const HttpSettings& settings,
                                 const DownloadProgress& progress);

}  // namespace hub
