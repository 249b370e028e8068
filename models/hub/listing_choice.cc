#include "models/hub/listing_choice.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "models/hub/hub_repo.h"

namespace hub {

namespace {

// Shown in the error for a request the listing lacks.
constexpr size_t kPairsNamed = 12;

// One dot-separated part: its number and pre-release tail ("0a1" -> 0, "a1").
std::pair<int64_t, std::string> split_part(const std::string& part) {
  size_t digits = 0;
  while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits]))) ++digits;
  const int64_t number = digits == 0 ? 0 : std::stoll(part.substr(0, std::min<size_t>(digits, 18)));
  return {number, part.substr(digits)};
}

std::vector<std::string> parts_of(const std::string& version) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = version.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(version.substr(start, dot - start));
  parts.push_back(version.substr(start));
  return parts;
}

int type_rank(const std::string& type) {
  const std::string t = ascii_lower(type);
  return t == "base" ? 0 : t == "tiny" ? 1 : 2;
}

bool translates(const ListingEntry& e, const std::string& pair) {
  for (const std::string& source : e.source_langs) {
    if (ascii_lower(source + "-" + e.target_lang) == pair) return true;
  }
  return false;
}

}  // namespace

std::string ascii_lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

int compare_versions(const std::string& a, const std::string& b) {
  const std::vector<std::string> pa = parts_of(a), pb = parts_of(b);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const auto [na, ta] = split_part(i < pa.size() ? pa[i] : "0");
    const auto [nb, tb] = split_part(i < pb.size() ? pb[i] : "0");
    if (na != nb) return na < nb ? -1 : 1;
    if (ta != tb) {  // a tail marks a pre-release: before the bare number
      if (ta.empty() || tb.empty()) return ta.empty() ? 1 : -1;
      return ta < tb ? -1 : 1;
    }
  }
  return 0;
}

int64_t major_version(const std::string& version) { return split_part(parts_of(version)[0]).first; }

const ListingEntry& choose_listing_entry(const Listing& listing, const std::string& request) {
  const std::string wanted = ascii_lower(request);
  std::vector<const ListingEntry*> candidates;
  for (const ListingEntry& e : listing.entries) {
    if (ascii_lower(e.code) == wanted) candidates.push_back(&e);
  }
  if (candidates.empty()) {
    for (const ListingEntry& e : listing.entries) {
      if (translates(e, wanted)) candidates.push_back(&e);
    }
  }
  if (candidates.empty()) {
    std::set<std::string> pairs;
    for (const ListingEntry& e : listing.entries) {
      for (const std::string& source : e.source_langs) pairs.insert(source + "-" + e.target_lang);
    }
    std::string named;
    size_t n = 0;
    for (const std::string& p : pairs) {
      if (n++ == kPairsNamed) {
        named += ", ...";
        break;
      }
      named += (named.empty() ? "" : ", ") + p;
    }
    throw DownloadError("'" + request + "' is not in the listing " + listing.url + " (it has " + named +
                        "; `nmt models list --listing` shows its codes)");
  }
  // stable: among equals, the first listed
  std::stable_sort(candidates.begin(), candidates.end(), [](const ListingEntry* a, const ListingEntry* b) {
    if (type_rank(a->type) != type_rank(b->type)) return type_rank(a->type) < type_rank(b->type);
    return compare_versions(a->version, b->version) > 0;
  });
  return *candidates.front();
}

std::string entry_source_lang(const ListingEntry& entry, const std::string& request) {
  const std::string wanted = ascii_lower(request);
  for (const std::string& source : entry.source_langs) {
    if (ascii_lower(source + "-" + entry.target_lang) == wanted) return source;
  }
  return entry.source_langs.empty() ? "" : entry.source_langs.front();
}

}  // namespace hub
