#include "tokenizer/sentence_splitter.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include "core/error.h"

namespace tokenizer {

namespace {

struct UTextCloser {
  void operator()(UText* t) const { utext_close(t); }
};

struct CodePoint {
  UChar32 value;  // negative for an invalid sequence
  size_t next;    // offset after it
};

CodePoint code_point_at(std::string_view text, size_t i) {
  int32_t pos = static_cast<int32_t>(i);
  UChar32 c;
  U8_NEXT(text.data(), pos, static_cast<int32_t>(text.size()), c);
  return {c, static_cast<size_t>(pos)};
}

bool is_ascii_quote(UChar32 c) { return c == '"' || c == '\''; }

// Unicode's closing punctuation (Pe), final quotes (Pf) and the ASCII quotes.
bool is_closer(UChar32 c) {
  if (is_ascii_quote(c)) return true;
  const int8_t type = u_charType(c);
  return type == U_END_PUNCTUATION || type == U_FINAL_PUNCTUATION;
}

bool is_opener(UChar32 c) {
  if (c == '"' || c == '\'') return true;
  const int8_t type = u_charType(c);
  return type == U_START_PUNCTUATION || type == U_INITIAL_PUNCTUATION;
}

bool is_space(UChar32 c) { return c >= 0 && u_isUWhiteSpace(c); }

// Whether a number starts at `at`: a digit, or a number sign or currency symbol, a space at most, then a
// digit ("# 8 for Iowa", "$5 is").
bool starts_number(std::string_view text, size_t at, size_t end) {
  CodePoint c = code_point_at(text, at);
  if (u_isdigit(c.value)) return true;
  if (c.value != '#' && c.value != 0x2116 /* № */ && u_charType(c.value) != U_CURRENCY_SYMBOL) return false;
  if (c.next < end && code_point_at(text, c.next).value == ' ') c = code_point_at(text, c.next);
  return c.next < end && u_isdigit(code_point_at(text, c.next).value);
}

// Candidates ICU does not offer: after "…" (U+2026) when whitespace and an upper-case letter follow
// ("Wait… What?", as after "..."), and after ". ! ?" when whitespace and a number follow ("A dog runs. 2
// men watch.", "# 8 for Iowa ...": Unicode's rule SB8 reads "2 men" as a continuation). The nonbreaking
// prefixes then judge them like ICU's own ("p. 5" stays whole).
std::vector<Span> add_candidates(std::string_view text, const std::vector<Span>& spans) {
  static constexpr std::string_view kEllipsis = "\xe2\x80\xa6";
  std::vector<Span> out;
  for (Span s : spans) {
    for (size_t at = s.begin; at < s.end;) {
      const CodePoint c = code_point_at(text, at);
      const bool ellipsis = text.compare(at, kEllipsis.size(), kEllipsis) == 0;
      const bool terminal = c.value == '.' || c.value == '!' || c.value == '?';
      size_t end = c.next;
      if (terminal) {
        while (end < s.end && is_closer(code_point_at(text, end).value)) end = code_point_at(text, end).next;
      }
      size_t next = end;
      while (next < s.end && is_space(code_point_at(text, next).value)) next = code_point_at(text, next).next;
      at = c.next;
      if ((!ellipsis && !terminal) || next == end || next >= s.end) continue;
      const UChar32 first = code_point_at(text, next).value;
      if ((ellipsis && u_isupper(first)) || (terminal && starts_number(text, next, s.end))) {
        out.push_back({s.begin, end});
        s.begin = next;
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

Span trim_whitespace(std::string_view text, Span span) {
  while (span.begin < span.end) {
    const CodePoint c = code_point_at(text, span.begin);
    if (!is_space(c.value)) break;
    span.begin = c.next;
  }
  while (span.end > span.begin) {
    int32_t start = static_cast<int32_t>(span.end);  // steps back to the last code point's first byte
    UChar32 c;
    U8_PREV(text.data(), 0, start, c);
    if (!is_space(c)) break;
    span.end = static_cast<size_t>(start);
  }
  return span;
}

SentenceSplitter::SentenceSplitter(const std::string& language, SplitRules rules)
    : language_(language), rules_(rules) {
  std::string locale_id = language.empty() ? "root" : language;
  if (rules == SplitRules::kIcuSuppressions) locale_id += "@ss=standard";
  if (rules == SplitRules::kIcuAndPrefixes) prefixes_ = nonbreaking_prefixes(language);
  const icu::Locale locale = icu::Locale::createFromName(locale_id.c_str());
  if (locale.isBogus()) throw core::UsageError("'" + language + "' is not a language tag");
  UErrorCode status = U_ZERO_ERROR;
  prototype_.reset(icu::BreakIterator::createSentenceInstance(locale, status));
  if (U_FAILURE(status) || !prototype_) {
    throw core::Error(std::string("ICU sentence iterator for '") + language + "': " + u_errorName(status));
  }
}

SentenceSplitter::~SentenceSplitter() = default;
SentenceSplitter::SentenceSplitter(SentenceSplitter&&) noexcept = default;
SentenceSplitter& SentenceSplitter::operator=(SentenceSplitter&&) noexcept = default;

std::vector<Span> SentenceSplitter::icu_sentences(std::string_view text) const {
  std::vector<Span> out;
  if (text.empty()) return out;
  UErrorCode status = U_ZERO_ERROR;
  // UTF-8 UText: ICU reads the bytes in place and its boundaries are byte offsets.
  std::unique_ptr<UText, UTextCloser> utext(
      utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status));
  std::unique_ptr<icu::BreakIterator> it(prototype_->clone());
  if (U_FAILURE(status) || !it) throw core::Error(std::string("ICU: ") + u_errorName(status));
  it->setText(utext.get(), status);
  if (U_FAILURE(status)) throw core::Error(std::string("ICU: ") + u_errorName(status));
  int32_t begin = it->first();
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE; begin = end, end = it->next()) {
    const Span s = trim_whitespace(text, {static_cast<size_t>(begin), static_cast<size_t>(end)});
    if (s.begin < s.end) out.push_back(s);
  }
  return out;
}

std::vector<Span> SentenceSplitter::split(std::string_view text) const {
  std::vector<Span> candidates = icu_sentences(text);
  if (rules_ != SplitRules::kIcuAndPrefixes || candidates.empty()) return candidates;
  candidates = add_candidates(text, candidates);
  std::vector<Span> out = {candidates.front()};
  for (size_t k = 1; k < candidates.size(); ++k) {
    Span next = candidates[k];
    // Closing quotes or brackets that ICU leaves at the start of the next sentence (French spacing:
    // "« Non ! » puis") belong to the one before.
    size_t pos = next.begin, after_closers = next.begin;
    while (pos < next.end) {
      const CodePoint c = code_point_at(text, pos);
      // An ASCII quote closes only when whitespace or the end follows it ("So do I." opens with one).
      const bool closes = is_closer(c.value) && (!is_ascii_quote(c.value) || c.next >= next.end ||
                                                 is_space(code_point_at(text, c.next).value));
      if (!closes && !(after_closers > next.begin && is_space(c.value))) break;
      if (closes) after_closers = c.next;
      pos = c.next;
    }
    if (after_closers > next.begin) {
      out.back().end = after_closers;
      next = trim_whitespace(text, {after_closers, next.end});
      if (next.begin == next.end) continue;
    }
    if (joins(text, out.back(), next)) {
      out.back().end = next.end;
    } else {
      out.push_back(next);
    }
  }
  return out;
}

bool SentenceSplitter::joins(std::string_view text, Span before, Span after) const {
  const CodePoint first = code_point_at(text, after.begin);
  if (u_islower(first.value)) return true;  // He said "Go!" and left.
  // The last word of `before`, without opening punctuation, must end in a single period.
  size_t word = before.begin;
  for (size_t i = before.begin; i < before.end;) {
    const CodePoint c = code_point_at(text, i);
    if (is_space(c.value) || is_opener(c.value)) word = c.next;
    i = c.next;
  }
  const std::string_view w = text.substr(word, before.end - word);
  if (w.size() < 2 || w.back() != '.' || w[w.size() - 2] == '.') return false;
  const std::string stem(w.substr(0, w.size() - 1));
  if (prefixes_.always.count(stem)) return true;
  if (u_isdigit(first.value)) {
    if (prefixes_.before_number.count(stem)) return true;
    const std::string& suffix = prefixes_.before_number_suffix;
    if (!suffix.empty() && stem.size() > suffix.size() &&
        stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  // An initial ("J. R. R. Tolkien", French "M. Dupont") or an abbreviation with inner periods ("z.B.",
  // "e.g.", "U.S."): letters and periods only, at most two letters between periods ("www.example.com."
  // ends a sentence).
  bool abbreviation = true, has_period = false;
  size_t letters = 0, run = 0;
  for (size_t i = 0; i < stem.size();) {
    const CodePoint c = code_point_at(stem, i);
    if (c.value == '.' || c.value == '-') {  // "J.-P. Sartre"
      has_period = has_period || c.value == '.';
      run = 0;
    } else if (u_isalpha(c.value)) {
      ++letters;
      abbreviation = abbreviation && ++run <= 2;
    } else {
      abbreviation = false;
    }
    i = c.next;
  }
  const bool initial = letters == 1 && !has_period && u_isupper(code_point_at(stem, 0).value);
  if (abbreviation && (initial || (has_period && letters > 1))) return true;
  // German ordinals: "am 3. Oktober", "im 19. Jahrhundert".
  const bool short_number = stem.size() <= 3 && stem.find_first_not_of("0123456789") == std::string::npos;
  return prefixes_.ordinal_numbers && short_number && u_isalpha(first.value);
}

}  // namespace tokenizer
