// Model listings without a network: Mozilla's version order, which entry a pair or code names, how Remote
// Settings records make one model per pair, and the decoder.yml Firefox's settings make.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "models/hub/firefox_decoder_config.h"
#include "models/hub/hub_repo.h"
#include "models/hub/listing_choice.h"
#include "models/hub/model_listing.h"

namespace {

using nlohmann::json;

json translatelocally_entry(const std::string& code, const std::string& type, int version) {
  return {{"shortName", code},  {"srcTags", {{"en", "English"}}},
          {"trgTag", "de"},     {"type", type},
          {"version", version}, {"url", "https://example.org/" + code + ".tar.gz"},
          {"checksum", "AB12"}};
}

json record(const std::string& type, const std::string& version, const std::string& filter = "") {
  return {{"name", type + ".bin"},
          {"fromLang", "en"},
          {"toLang", "de"},
          {"version", version},
          {"fileType", type},
          {"filter_expression", filter},
          {"attachment",
           {{"hash", "CD34"},
            {"size", 10},
            {"filename", type + "-" + version + ".bin"},
            {"location", "m/" + type}}}};
}

std::string file_for(const hub::ListingEntry& e, const std::string& role) {
  for (const hub::ListingFile& f : e.files) {
    if (f.role == role) return f.name;
  }
  return "";
}

}  // namespace

TEST_CASE("versions order as Mozilla's: pre-releases before releases, missing parts are 0",
          "[hub][listing]") {
  CHECK(hub::compare_versions("1.0", "1.1") < 0);
  CHECK(hub::compare_versions("1.0a1", "1.0") < 0);
  CHECK(hub::compare_versions("1.10", "1.9") > 0);
  CHECK(hub::compare_versions("2", "2.0") == 0);
  CHECK(hub::compare_versions("2.0a1", "1.9") > 0);
  CHECK(hub::major_version("2.0a1") == 2);
}

TEST_CASE("a pair picks base over tiny, then the newest version, and a code names its entry",
          "[hub][listing]") {
  const json listing = {
      {"models",
       {translatelocally_entry("en-de-tiny", "tiny", 9), translatelocally_entry("en-de-old", "base", 1),
        translatelocally_entry("en-de-base", "base", 2)}}};
  const hub::Listing l = hub::parse_listing("https://example.org/models.json", listing, "");
  CHECK(l.kind == hub::ListingKind::kTranslateLocally);
  CHECK(hub::choose_listing_entry(l, "en-de").code == "en-de-base");
  CHECK(hub::choose_listing_entry(l, "EN-DE-TINY").code == "en-de-tiny");
  CHECK(l.entries[0].files[0].sha256 == "ab12");  // hex compared lower-case
  CHECK_THROWS_AS(hub::choose_listing_entry(l, "de-en"), hub::DownloadError);
  CHECK_THROWS_WITH(hub::choose_listing_entry(l, "de-en"), Catch::Contains("it has en-de"));
}

TEST_CASE("Remote Settings: the newest major line with a whole model, each file at its newest",
          "[hub][listing]") {
  const json records = {
      {"data",
       {record("model", "1.0"), record("model", "1.1"), record("lex", "1.0"), record("vocab", "1.0"),
        record("model", "2.0"), record("lex", "2.0"),  // no vocab: 2.x is not whole
        record("vocab", "3.0a1", "env.channel == 'nightly'"), record("model", "3.0a1", "x"),
        record("lex", "3.0a1", "x"), record("qualityModel", "1.1")}}};
  const hub::Listing l = hub::parse_listing("https://rs.example/v1/records", records, "https://cdn.example/");
  REQUIRE(l.entries.size() == 1);
  const hub::ListingEntry& e = l.entries[0];
  CHECK(e.code == "en-de");
  CHECK(e.version == "1.1");
  CHECK(e.files.size() == 3);
  CHECK(file_for(e, "model") == "model-1.1.bin");
  CHECK(file_for(e, "lex") == "lex-1.0.bin");
  CHECK(e.files[0].url == "https://cdn.example/m/model");
}

TEST_CASE("Firefox's decoder.yml: greedy, its vocabularies and shortlist, the gemm precision by name",
          "[hub][listing]") {
  hub::ListingEntry e;
  e.files = {{"", "model.enes.intgemm8.bin", "", 0, "model", false},
             {"", "lex.bin", "", 0, "lex", false},
             {"", "src.spm", "", 0, "srcvocab", false},
             {"", "trg.spm", "", 0, "trgvocab", false}};
  const std::string yml = hub::firefox_decoder_yml(e);
  CHECK(yml.find("beam-size: 1\n") != std::string::npos);
  CHECK(yml.find("vocabs:\n  - \"src.spm\"\n  - \"trg.spm\"\n") != std::string::npos);
  CHECK(yml.find("shortlist:\n  - \"lex.bin\"\n  - false\n") != std::string::npos);
  CHECK(yml.find("gemm-precision: int8shiftAll\n") != std::string::npos);
  e.files[0].name = "model.enes.intgemm.alphas.bin";
  CHECK(hub::firefox_decoder_yml(e).find("gemm-precision: int8shiftAlphaAll\n") != std::string::npos);
}

TEST_CASE("the listing comes from --listing, else NMT_LISTING, with known words as their URLs",
          "[hub][listing]") {
  ::unsetenv(hub::kListingEnv);
  CHECK(hub::listing_location("").empty());
  CHECK(hub::listing_location("translatelocally") == "https://translatelocally.com/models.json");
  ::setenv(hub::kListingEnv, "https://example.org/models.json", 1);
  CHECK(hub::listing_location("") == "https://example.org/models.json");
  CHECK(hub::listing_location("https://other.example/") == "https://other.example/");
  ::unsetenv(hub::kListingEnv);
}
