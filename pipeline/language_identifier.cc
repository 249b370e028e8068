#include "pipeline/language_identifier.h"

// clang-format off
#include <cstdio>  // before CLD2's header, which uses FILE without including it
#include <cld2/public/compact_lang_det.h>
// clang-format on

#include <climits>

namespace pipeline {
namespace {

// CLD2 calls a handful of words reliable, but one short caption is often another language's plausible
// phrase ("Die" in English, "Hand in Hand" in German): below this many letters the answer is not used.
constexpr int kMinLetters = 20;
// The top language must cover this share of the text's letters; less is a mix of languages.
constexpr int kMinPercent = 70;

int letters(const std::string& text) {
  int n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    // ASCII letters, and every non-ASCII character once (its lead byte): most scripts' characters are
    // letters, and CLD2 itself skips the rest.
    if (std::isalpha(c) != 0 || c >= 0xC0) ++n;
  }
  return n;
}

// The CLD2 language of a tag by its primary subtag ("en-US" is English); UNKNOWN_LANGUAGE for one CLD2
// does not know (three-letter ISO 639-3 codes such as "deu", language groups).
CLD2::Language language_of(const std::string& tag) {
  return CLD2::GetLanguageFromName(tag.substr(0, tag.find_first_of("-_")).c_str());
}

}  // namespace

std::string identify_language(const std::string& text) { return guess_language(text).language; }

LanguageGuess guess_language(const std::string& text) {
  if (letters(text) < kMinLetters || text.size() > static_cast<size_t>(INT_MAX)) return {};
  CLD2::Language top3[3];
  int percent3[3];
  double normalized_score3[3];
  int text_bytes = 0, valid_prefix_bytes = 0;
  bool reliable = false;
  const CLD2::Language language = CLD2::ExtDetectLanguageSummaryCheckUTF8(
      text.data(), static_cast<int>(text.size()), /*is_plain_text=*/true, /*cld_hints=*/nullptr,
      /*flags=*/0, top3, percent3, normalized_score3, /*resultchunkvector=*/nullptr, &text_bytes, &reliable,
      &valid_prefix_bytes);
  if (!reliable || language == CLD2::UNKNOWN_LANGUAGE || top3[0] != language || percent3[0] < kMinPercent)
    return {};
  return {CLD2::LanguageCode(language), percent3[0]};
}

bool can_identify(const std::string& tag) { return language_of(tag) != CLD2::UNKNOWN_LANGUAGE; }

bool same_language(const std::string& detected, const std::string& tag) {
  const CLD2::Language a = language_of(detected), b = language_of(tag);
  if (a == b) return true;
  // Languages CLD2 itself confuses (Croatian, Serbian and Bosnian; Indonesian and Malay; ...) count as one.
  return CLD2::LanguageCloseSet(a) != 0 && CLD2::LanguageCloseSet(a) == CLD2::LanguageCloseSet(b);
}

}  // namespace pipeline
