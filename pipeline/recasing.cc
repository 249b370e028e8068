#include "pipeline/recasing.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

namespace pipeline {
namespace {

constexpr int kMinCapitalWords = 2;
constexpr int kMinWordCapitals = 2;

icu::Locale locale_of(const std::string& language) {
  return language.empty() ? icu::Locale::getRoot() : icu::Locale(language.c_str());
}

}  // namespace

bool is_all_caps(const std::string& line) {
  int capital_words = 0, capitals_in_word = 0;
  const auto end_word = [&] {
    if (capitals_in_word >= kMinWordCapitals) ++capital_words;
    capitals_in_word = 0;
  };
  const auto* bytes = reinterpret_cast<const uint8_t*>(line.data());
  const auto length = static_cast<int32_t>(line.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) return false;  // invalid UTF-8 is left as it is
    if (u_islower(c)) return false;
    if (u_isupper(c) || u_istitle(c)) {
      ++capitals_in_word;
    } else if (u_isUWhiteSpace(c)) {
      end_word();
    }
  }
  end_word();
  return capital_words >= kMinCapitalWords;
}

std::string sentence_case(const std::string& line, const std::string& language) {
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(line);
  text.toLower(locale_of(language));
  bool sentence_start = true;
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    if (sentence_start && u_isalpha(c)) {
      text.replace(i, U16_LENGTH(c), u_totitle(c));  // one character: its title case, not "SS" for "ß"
      sentence_start = false;
    } else if (c == '.' || c == '!' || c == '?') {
      sentence_start = true;
    } else if (u_isdigit(c)) {
      sentence_start = false;
    }
    i += U16_LENGTH(text.char32At(i));
  }
  std::string out;
  return text.toUTF8String(out);
}

std::string upper_case(const std::string& text, const std::string& language) {
  icu::UnicodeString unicode = icu::UnicodeString::fromUTF8(text);
  unicode.toUpper(locale_of(language));
  std::string out;
  return unicode.toUTF8String(out);
}

}  // namespace pipeline
