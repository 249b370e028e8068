#include "front/language_codes.h"

#include <array>
#include <cctype>

namespace front {

namespace {

struct Language {
  const char* code;           // ISO 639-1, as OPUS-MT models name it
  const char* iso3;           // ISO 639-3 (and 639-2/T)
  const char* bibliographic;  // ISO 639-2/B where it differs, else ""
  const char* name;
};

// The languages OPUS-MT's pair models cover most, and those LibreTranslate's clients ask for.
constexpr std::array<Language, 44> kLanguages = {{
    {"af", "afr", "", "Afrikaans"},    {"ar", "ara", "", "Arabic"},      {"bg", "bul", "", "Bulgarian"},
    {"ca", "cat", "", "Catalan"},      {"cs", "ces", "cze", "Czech"},    {"cy", "cym", "wel", "Welsh"},
    {"da", "dan", "", "Danish"},       {"de", "deu", "ger", "German"},   {"el", "ell", "gre", "Greek"},
    {"en", "eng", "", "English"},      {"eo", "epo", "", "Esperanto"},   {"es", "spa", "", "Spanish"},
    {"et", "est", "", "Estonian"},     {"eu", "eus", "baq", "Basque"},   {"fa", "fas", "per", "Persian"},
    {"fi", "fin", "", "Finnish"},      {"fr", "fra", "fre", "French"},   {"ga", "gle", "", "Irish"},
    {"gl", "glg", "", "Galician"},     {"he", "heb", "", "Hebrew"},      {"hi", "hin", "", "Hindi"},
    {"hr", "hrv", "", "Croatian"},     {"hu", "hun", "", "Hungarian"},   {"id", "ind", "", "Indonesian"},
    {"is", "isl", "ice", "Icelandic"}, {"it", "ita", "", "Italian"},     {"ja", "jpn", "", "Japanese"},
    {"ko", "kor", "", "Korean"},       {"lt", "lit", "", "Lithuanian"},  {"lv", "lav", "", "Latvian"},
    {"nb", "nob", "", "Norwegian"},    {"nl", "nld", "dut", "Dutch"},    {"pl", "pol", "", "Polish"},
    {"pt", "por", "", "Portuguese"},   {"ro", "ron", "rum", "Romanian"}, {"ru", "rus", "", "Russian"},
    {"sk", "slk", "slo", "Slovak"},    {"sl", "slv", "", "Slovenian"},   {"sq", "sqi", "alb", "Albanian"},
    {"sv", "swe", "", "Swedish"},      {"tr", "tur", "", "Turkish"},     {"uk", "ukr", "", "Ukrainian"},
    {"vi", "vie", "", "Vietnamese"},   {"zh", "zho", "chi", "Chinese"},
}};

const Language* find(const std::string& normalized) {
  if (normalized.empty()) return nullptr;
  for (const Language& l : kLanguages) {
    if (normalized == l.code || normalized == l.iso3 || normalized == l.bibliographic) return &l;
  }
  return nullptr;
}

std::string primary_subtag(const std::string& code) {
  std::string out;
  for (char c : code) {
    if (c == '-' || c == '_') break;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string normalize_language(const std::string& code) {
  const std::string primary = primary_subtag(code);
  if (primary.empty()) return primary;
  const Language* l = find(primary);
  return l ? l->code : primary;
}

bool same_language_code(const std::string& a, const std::string& b) {
  return normalize_language(a) == normalize_language(b);
}

std::string language_name(const std::string& code) {
  const Language* l = find(primary_subtag(code));
  return l ? l->name : code;
}

}  // namespace front
