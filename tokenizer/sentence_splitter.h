// Splits a line into sentences: ICU's sentence BreakIterator (Unicode's rules: ". ! ? …" and CJK "。！？",
// closing quotes and brackets, numbers, URLs) finds the candidates; the language's nonbreaking prefixes
// (tokenizer/nonbreaking_prefixes.h) then drop those after an abbreviation, a title or an initial.
#pragma once

#include <unicode/uversion.h>  // ICU's versioned namespace, for the declaration below

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/nonbreaking_prefixes.h"

U_NAMESPACE_BEGIN
class BreakIterator;
U_NAMESPACE_END

namespace tokenizer {

// Bytes [begin, end) of a sentence inside the line, without the whitespace around it.
struct Span {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const Span& o) const { return begin == o.begin && end == o.end; }
};

// Which rules decide. The alternatives to the default are kept for measuring the choice on the gold set
// (tests/fixtures/sentences): ICU alone breaks after most abbreviations; ICU's own suppression lists
// (locale keyword ss=standard) miss common titles ("Dr." in English) and hold entries that end many
// sentences ("Uhr." in German).
enum class SplitRules { kIcuAndPrefixes, kIcu, kIcuSuppressions };

class SentenceSplitter {
 public:
  // `language`: a BCP 47 tag such as "en" or "de-CH"; "" means language-neutral rules (ICU's root
  // locale, initials only). Throws core::Error if ICU cannot build the iterator.
  explicit SentenceSplitter(const std::string& language, SplitRules rules = SplitRules::kIcuAndPrefixes);
  ~SentenceSplitter();
  SentenceSplitter(SentenceSplitter&&) noexcept;
  SentenceSplitter& operator=(SentenceSplitter&&) noexcept;

  // The sentences of valid UTF-8 `text`, in order, none empty and none holding only whitespace.
  // Thread-safe: each call works on its own copy of the iterator.
  std::vector<Span> split(std::string_view text) const;

  const std::string& language() const { return language_; }

 private:
  std::vector<Span> icu_sentences(std::string_view text) const;
  // Whether the boundary between `before` and `after` is no sentence end (an abbreviation, a lower-case
  // continuation...).
  bool joins(std::string_view text, Span before, Span after) const;

  std::string language_;
  SplitRules rules_;
  NonbreakingPrefixes prefixes_;
  std::unique_ptr<icu::BreakIterator> prototype_;
};

// Whitespace is any Unicode White_Space code point (spaces, tabs, no-break and ideographic spaces).
// The span of `text` without leading and trailing whitespace (begin == end when it is all whitespace).
Span trim_whitespace(std::string_view text, Span span);

}  // namespace tokenizer
