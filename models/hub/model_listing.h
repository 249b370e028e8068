// Model listings: the catalogues the Firefox Translations / Bergamot students are found in, read into one
// shape. translateLocally's repository JSON ({"models": [...]}, one .tar.gz package per entry) and Mozilla
// Remote Settings' `translations-models` records ({"data": [...]}, one record per file), told apart by
// their JSON. See docs/models.md.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/hub/http_client.h"

namespace hub {

enum class ListingKind { kTranslateLocally, kRemoteSettings };

// "translatelocally" or "remote-settings", as install.json records it.
const char* listing_kind_word(ListingKind kind);

// A file to download, as the listing states it.
struct ListingFile {
  std::string url;
  std::string name;  // a plain file name, what it is stored as (".gz" stripped once decompressed)
  std::string sha256;
  uint64_t size = 0;  // 0: the listing does not say
  std::string role;   // package (translateLocally); model, lex, vocab, srcvocab, trgvocab (Remote Settings)
  bool gzip = false;  // decompressed once checked
};

// One model the listing offers.
struct ListingEntry {
  std::string code;  // translateLocally's shortName (en-de-tiny); a Remote Settings pair (en-de)
  std::vector<std::string> source_langs;  // translateLocally's srcTags may hold several
  std::string target_lang;
  std::string type;     // base, tiny, ... ("" when the listing does not say)
  std::string version;  // as the listing states it (2, "1.1")
  std::vector<ListingFile> files;
  nlohmann::json listed;  // the listing's own record(s) of it, for install.json
};

struct Listing {
  ListingKind kind = ListingKind::kTranslateLocally;
  std::string url;
  std::vector<ListingEntry> entries;
};

// Listings named by a word instead of a URL (--listing firefox).
struct KnownListing {
  const char* word;
  const char* url;
  const char* what;  // for --help
};
extern const KnownListing kKnownListings[2];

constexpr const char* kListingEnv = "NMT_LISTING";
constexpr size_t kMaxListingBytes = 32u << 20;

// `flag` (--listing) if given, else $NMT_LISTING; a known word replaced by its URL; "" when neither.
std::string listing_location(const std::string& flag);

// GETs the listing at `url` (a Remote Settings server's root or records URL, or a translateLocally
// repository) and reads it. Throws DownloadError: one line naming the URL and what is wrong.
Listing fetch_listing(const std::string& url, const HttpSettings& settings);

// Parses a listing's JSON; `attachments_base` is the Remote Settings server's attachment URL prefix
// (unused for translateLocally). Throws DownloadError naming `url`.
Listing parse_listing(const std::string& url, const nlohmann::json& json,
                      const std::string& attachments_base);

}  // namespace hub
