// The splitting and rejoining steps of Translator::translate: lines become segments (sentences, cut
// further when over the token limit) that are translated on their own; the segments' translations
// become one line again, with the whitespace that stood between the source segments.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tokenizer/sentence_splitter.h"

namespace pipeline {

struct TranslateWarning {
  size_t line = 0;  // index into the lines given to translate()
  std::string message;
};

// Where one line's segments are and what surrounds them.
struct LineLayout {
  size_t first = 0;                // its segments are [first, first + after.size()) of the window's
  std::string leading;             // whitespace before the first segment (a blank line: all of it)
  std::vector<std::string> after;  // source text after each segment; the last one is the line's trailing
};

struct SegmentedLines {
  std::vector<std::vector<int32_t>> ids;  // each segment's source ids (EOS included), lines in order
  std::vector<std::string> texts;         // each segment's text as the model reads it
  std::vector<LineLayout> lines;
  std::vector<TranslateWarning> warnings;
};

struct SegmentRules {
  const tokenizer::SentenceSplitter* splitter = nullptr;  // null: each line is one sentence (--no-split)
  int max_tokens = 200;                                   // longer sentences are cut at clauses, spaces...
  std::function<std::vector<int32_t>(const std::string&)> encode;  // source ids of a text, EOS included
};

SegmentedLines segment_lines(const std::vector<std::string>& lines, const SegmentRules& rules);

// The line's translation: `translations` holds one text per segment of `layout`. Where the source had
// nothing between two segments (a CJK source, or a cut inside a word), one space joins their
// translations unless `join_unspaced` (CJK targets).
std::string rejoin(const LineLayout& layout, const std::vector<std::string>& translations,
                   bool join_unspaced);

// What joins a translation to the next one: the source's whitespace between their sources, or one space
// where the source had none (a cut inside a word, a CJK source) unless `join_unspaced` (CJK targets) or
// the translation is empty. The one joining rule, for sentences and for the pieces of over-long lines.
std::string_view join_gap(std::string_view source_gap, const std::string& translation, bool join_unspaced);

// What rejoin() puts between translations k and k + 1.
std::string separator(const LineLayout& layout, const std::vector<std::string>& translations, size_t k,
                      bool join_unspaced);

// Whether text in `language` (a BCP 47 tag) is written without spaces between sentences.
bool writes_without_spaces(const std::string& language);

}  // namespace pipeline
