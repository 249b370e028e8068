// `nmt models list --listing`: the models a listing offers, one row each, sorted by pair.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands/models_command.h"
#include "cli/exit_codes.h"
#include "cli/io/progress_text.h"
#include "models/hub/listing_choice.h"
#include "models/hub/model_listing.h"

namespace cli {

namespace {

std::string pairs_of(const hub::ListingEntry& e) {
  std::string pairs;
  for (const std::string& source : e.source_langs)
    pairs += (pairs.empty() ? "" : ",") + source + "-" + e.target_lang;
  return pairs;
}

uint64_t size_of(const hub::ListingEntry& e) {
  uint64_t size = 0;
  for (const hub::ListingFile& f : e.files) size += f.size;
  return size;
}

}  // namespace

int run_models_list_listing(const ModelsCommandOptions& o) {
  const std::string location = hub::listing_location(o.listing);
  const hub::Listing listing = hub::fetch_listing(location, hub::HttpSettings::from_environment());
  std::vector<const hub::ListingEntry*> rows;
  for (const hub::ListingEntry& e : listing.entries) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(), [](const hub::ListingEntry* a, const hub::ListingEntry* b) {
    return pairs_of(*a) < pairs_of(*b);
  });
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const hub::ListingEntry* e : rows) {
      out.push_back({{"code", e->code},
                     {"source_langs", e->source_langs},
                     {"target_lang", e->target_lang},
                     {"type", e->type},
                     {"version", e->version},
                     {"size_bytes", size_of(*e)}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  size_t code_w = 4, pair_w = 4;
  for (const hub::ListingEntry* e : rows) {
    code_w = std::max(code_w, e->code.size());
    pair_w = std::max(pair_w, pairs_of(*e).size());
  }
  std::cout << hub::listing_kind_word(listing.kind) << " listing " << listing.url << ": " << rows.size()
            << " models\n";
  std::cout << std::left << std::setw(code_w + 2) << "CODE" << std::setw(pair_w + 2) << "PAIR" << std::setw(7)
            << "TYPE" << std::setw(9) << "VERSION"
            << "SIZE\n";
  for (const hub::ListingEntry* e : rows) {
    const uint64_t size = size_of(*e);
    std::cout << std::setw(code_w + 2) << e->code << std::setw(pair_w + 2) << pairs_of(*e) << std::setw(7)
              << (e->type.empty() ? "-" : e->type) << std::setw(9) << e->version
              << (size ? format_bytes(size, 0) : "-") << "\n";
  }
  return kExitOk;
}

}  // namespace cli
