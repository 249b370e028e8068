#include "models/hub/model_listing.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "models/hub/hub_repo.h"
#include "models/hub/listing_choice.h"

namespace hub {

namespace {

using nlohmann::json;

// Where Remote Settings keeps the Firefox Translations models, below a server's /v1/ root.
constexpr const char* kRemoteSettingsRecords = "buckets/main/collections/translations-models/records";
constexpr const char* kRemoteSettingsRoot = "/v1/";

// The files a Remote Settings model is made of; other file types (qualityModel) are not read.
const char* const kRemoteSettingsRoles[] = {"model", "lex", "vocab", "srcvocab", "trgvocab"};

[[noreturn]] void bad_listing(const std::string& url, const std::string& problem) {
  throw DownloadError(url + ": " + problem);
}

std::string get_listing_text(const std::string& url, const HttpSettings& settings) {
  try {
    return get_text(url, settings, kMaxListingBytes);
  } catch (const HttpError& e) {
    bad_listing(url, (e.status() ? "HTTP " + std::to_string(e.status()) : std::string(e.what())) + "; " +
                         offline_advice());
  }
}

json parse_json(const std::string& url, const std::string& text) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) bad_listing(url, "not a JSON object");
  return parsed;
}

std::string text_field(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return "";
}

uint64_t size_field(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return 0;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_string()) return std::strtoull(it->get<std::string>().c_str(), nullptr, 10);
  return 0;
}

// A name the listing gives a file, usable as one file name in our directory.
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name[0] != '.' &&
         name.find_first_of("/\\") == std::string::npos && name.find('\0') == std::string::npos;
}

std::string joined_url(const std::string& base, const std::string& path) {
  if (!base.empty() && base.back() == '/' && !path.empty() && path[0] == '/') return base + path.substr(1);
  if (!base.empty() && base.back() != '/' && !path.empty() && path[0] != '/') return base + "/" + path;
  return base + path;
}

// translateLocally's repository: {"models": [{"shortName", "srcTags", "trgTag", "type", "version", "url",
// "checksum" (sha256 of the .tar.gz), ...}]}. Entries without a shortName or url are skipped, as
// translateLocally skips them.
std::vector<ListingEntry> translatelocally_entries(const json& models) {
  std::vector<ListingEntry> entries;
  for (const json& model : models) {
    if (!model.is_object()) continue;
    ListingEntry e;
    e.code = text_field(model, "shortName");
    if (e.code.empty()) e.code = text_field(model, "code");
    const std::string url = text_field(model, "url");
    if (e.code.empty() || url.empty()) continue;
    if (const auto tags = model.find("srcTags"); tags != model.end() && tags->is_object()) {
      for (auto it = tags->begin(); it != tags->end(); ++it) e.source_langs.push_back(it.key());
    }
    e.target_lang = text_field(model, "trgTag");
    const size_t dash = e.code.find('-');  // an old-style entry: its languages from "en-de-tiny"
    if (dash != std::string::npos) {
      const size_t second = e.code.find('-', dash + 1);
      if (e.source_langs.empty()) e.source_langs.push_back(e.code.substr(0, dash));
      if (e.target_lang.empty()) e.target_lang = e.code.substr(dash + 1, second - dash - 1);
    }
    e.type = text_field(model, "type");
    e.version = text_field(model, "version");
    if (e.version.empty()) e.version = text_field(model, "modelVersion");
    e.files.push_back(
        {url, "package.tar.gz", ascii_lower(text_field(model, "checksum")), 0, "package", false});
    e.listed = model;
    entries.push_back(std::move(e));
  }
  return entries;
}

struct Record {
  const json* raw;
  std::string role, version;
  ListingFile file;
};

// The newest release line (major version) of one pair's records that holds a whole model (model, lex,
// and vocab or srcvocab + trgvocab); within it each file at its newest version, as Firefox picks them.
bool newest_complete_set(const std::vector<Record>& records, std::vector<const Record*>& chosen) {
  std::vector<int64_t> majors;
  for (const Record& r : records) majors.push_back(major_version(r.version));
  std::sort(majors.rbegin(), majors.rend());
  majors.erase(std::unique(majors.begin(), majors.end()), majors.end());
  for (int64_t major : majors) {
    std::map<std::string, const Record*> newest;
    for (const Record& r : records) {
      if (major_version(r.version) != major) continue;
      const Record*& slot = newest[r.role];
      if (slot == nullptr || compare_versions(slot->version, r.version) < 0) slot = &r;
    }
    const bool split_vocab = newest.count("srcvocab") && newest.count("trgvocab");
    if (!newest.count("model") || !newest.count("lex") || (!split_vocab && !newest.count("vocab"))) continue;
    chosen.clear();
    for (const char* role : kRemoteSettingsRoles) {
      const std::string r = role;
      if (newest.count(r) && !(split_vocab && r == "vocab")) chosen.push_back(newest[r]);
    }
    return true;
  }
  return false;
}

// Remote Settings' translations-models records: {"data": [{"name", "fromLang", "toLang" (or
// "sourceLanguage", "targetLanguage"), "version", "fileType", "attachment": {"hash", "size", "filename",
// "location", "mimetype"}, "filter_expression"}]}, one entry per pair.
std::vector<ListingEntry> remote_settings_entries(const std::string& url, const json& data,
                                                  const std::string& attachments_base) {
  std::map<std::string, std::vector<Record>> by_pair;
  for (const json& record : data) {
    if (!record.is_object()) continue;
    const std::string role = text_field(record, "fileType");
    if (std::find(std::begin(kRemoteSettingsRoles), std::end(kRemoteSettingsRoles), role) ==
        std::end(kRemoteSettingsRoles)) {
      continue;
    }
    if (!text_field(record, "filter_expression").empty()) continue;  // for some Firefox builds only
    std::string from = text_field(record, "fromLang"), to = text_field(record, "toLang");
    if (from.empty()) from = text_field(record, "sourceLanguage");
    if (to.empty()) to = text_field(record, "targetLanguage");
    const auto attachment = record.find("attachment");
    if (from.empty() || to.empty() || attachment == record.end() || !attachment->is_object()) continue;
    Record r{&record, role, text_field(record, "version"), {}};
    std::string name = text_field(*attachment, "filename");
    const std::string mimetype = text_field(*attachment, "mimetype");
    const bool gz = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
    r.file.gzip = gz || mimetype == "application/gzip" || mimetype == "application/x-gzip";
    if (gz) name.resize(name.size() - 3);
    if (!plain_file_name(name))
      bad_listing(url, "record '" + text_field(record, "id") +
                           "': attachment "
                           "filename '" +
                           name + "' is not a plain file name");
    r.file.name = name;
    r.file.url = joined_url(attachments_base, text_field(*attachment, "location"));
    r.file.sha256 = ascii_lower(text_field(*attachment, "hash"));
    r.file.size = size_field(*attachment, "size");
    r.file.role = role;
    by_pair[from + "\t" + to].push_back(std::move(r));
  }
  std::vector<ListingEntry> entries;
  for (const auto& [pair, records] : by_pair) {
    std::vector<const Record*> chosen;
    if (!newest_complete_set(records, chosen)) continue;
    ListingEntry e;
    e.source_langs = {pair.substr(0, pair.find('\t'))};
    e.target_lang = pair.substr(pair.find('\t') + 1);
    e.code = e.source_langs[0] + "-" + e.target_lang;
    e.listed = json::array();
    for (const Record* r : chosen) {
      if (r->role == "model") e.version = r->version;
      e.files.push_back(r->file);
      e.listed.push_back(*r->raw);
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

// The Remote Settings server's root (.../v1/) for a URL below it; "" when the URL has no /v1/.
std::string remote_settings_root(const std::string& url) {
  const size_t at = url.find(kRemoteSettingsRoot);
  return at == std::string::npos ? "" : url.substr(0, at + std::string(kRemoteSettingsRoot).size());
}

std::string attachments_base_of(const std::string& url, const json& root) {
  const auto capabilities = root.find("capabilities");
  if (capabilities != root.end() && capabilities->is_object()) {
    const auto attachments = capabilities->find("attachments");
    if (attachments != capabilities->end() && attachments->is_object()) {
      const std::string base = text_field(*attachments, "base_url");
      if (!base.empty()) return base;
    }
  }
  bad_listing(url, "the Remote Settings server states no capabilities.attachments.base_url");
}

}  // namespace

const KnownListing kKnownListings[2] = {
    {"firefox",
     "https://firefox.settings.services.mozilla.com/v1/buckets/main/collections/translations-models/records",
     "Firefox Translations' Remote Settings"},
    {"translatelocally", "https://translatelocally.com/models.json", "translateLocally's repository"},
};

const char* listing_kind_word(ListingKind kind) {
  return kind == ListingKind::kTranslateLocally ? "translatelocally" : "remote-settings";
}

std::string listing_location(const std::string& flag) {
  std::string where = flag;
  if (where.empty()) {
    const char* env = std::getenv(kListingEnv);
    where = env == nullptr ? "" : env;
  }
  for (const KnownListing& known : kKnownListings) {
    if (where == known.word) return known.url;
  }
  return where;
}

Listing parse_listing(const std::string& url, const json& listing, const std::string& attachments_base) {
  Listing out;
  out.url = url;
  if (const auto models = listing.find("models"); models != listing.end() && models->is_array()) {
    out.kind = ListingKind::kTranslateLocally;
    out.entries = translatelocally_entries(*models);
  } else if (const auto data = listing.find("data"); data != listing.end() && data->is_array()) {
    out.kind = ListingKind::kRemoteSettings;
    out.entries = remote_settings_entries(url, *data, attachments_base);
  } else {
    bad_listing(url,
                "not a model listing (expected translateLocally's {\"models\": [...]} or Remote "
                "Settings' {\"data\": [...]})");
  }
  if (out.entries.empty()) bad_listing(url, "the listing offers no model nmt can install");
  return out;
}

Listing fetch_listing(const std::string& url, const HttpSettings& settings) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
    std::string words;
    for (const KnownListing& known : kKnownListings)
      words += std::string(words.empty() ? "" : ", ") + known.word;
    throw core::UsageError("listing '" + url + "': give an http(s) URL or one of " + words);
  }
  const json first = parse_json(url, get_listing_text(url, settings));
  if (first.contains("capabilities")) {  // a Remote Settings server's root: its translations-models records
    const std::string base = attachments_base_of(url, first);
    const std::string records_url = joined_url(url, kRemoteSettingsRecords);
    return parse_listing(url, parse_json(records_url, get_listing_text(records_url, settings)), base);
  }
  std::string base;
  if (first.contains("data")) {
    const std::string root = remote_settings_root(url);
    if (root.empty())
      bad_listing(url, "Remote Settings records, but no /v1/ in the URL to find the server by");
    base = attachments_base_of(root, parse_json(root, get_listing_text(root, settings)));
  }
  return parse_listing(url, first, base);
}

}  // namespace hub
