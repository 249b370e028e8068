// Which model of a listing a request names: a listing's code (en-de-tiny), or a language pair (en-de) that
// several entries may translate, resolved the same way every time. See docs/models.md.
#pragma once

#include <cstdint>
#include <string>

#include "models/hub/model_listing.h"

namespace hub {

// Mozilla's version order (as Services.vc.compare): dot-separated parts, each a number and an optional
// pre-release tail ("1.0a1" < "1.0" < "1.1" < "2"); missing parts count as 0. <0, 0 or >0.
int compare_versions(const std::string& a, const std::string& b);

// `text` with ASCII letters lower-cased: codes, pairs and hex digests compare so.
std::string ascii_lower(std::string text);

// The leading number of a version ("1.2" -> 1); 0 when it has none.
int64_t major_version(const std::string& version);

// The entry `request` names: the entry whose code it is (case-insensitive), else among the entries that
// translate the pair SOURCE-TARGET, base before tiny before other types, then the newest version, then
// the first listed. Throws DownloadError (one line, the pairs the listing has) when none matches.
const ListingEntry& choose_listing_entry(const Listing& listing, const std::string& request);

// The entry's source language for `request`: the pair's source when the request is a pair the entry
// translates, else the entry's first.
std::string entry_source_lang(const ListingEntry& entry, const std::string& request);

}  // namespace hub
