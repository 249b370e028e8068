// Markup projection: a segment's inline elements and insertions carried from its source words to the words
// of its translation through their word alignment (docs/formats.md, "How markup is projected").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "documents/pipeline_types.h"
#include "documents/segment.h"

namespace documents {

// Plain target text as the output format spells it (HTML escapes '&', '<', '>').
using TextEscape = std::function<std::string(std::string_view)>;

// The translation `target` of `source.text` with the source's elements and insertions placed in it. `links`
// join target words to source words (whitespace-separated, 0-based), as Translation::alignments
// gives them; a target word without a link takes its left neighbour's source word.
//
// Each target character takes the source character at the same relative place in the word it aligns to, so
// markup over part of a word survives. An element spans the hull of the target characters it covers (one
// element stays one element), clipped into its parent and off any element it would cross, so the output is
// always well nested and holds every element once; one that covers no target character stays, empty, where
// an insertion at its start would go (unless `moved` below moves it). An insertion goes after the last target
// word aligned to the source word it follows (inside a word: at the same relative place), never before an
// earlier insertion.
//
// `markup`, when given, receives the output's bytes that come from the source's markup, so a writer that
// re-wraps the text knows where it must not break. `moved`, when given, counts the elements with words of
// their own (and no element with words inside) that the translation left without a word: each goes around
// the target word at its place (without its trailing punctuation) instead of standing empty, so a link
// never loses its text; without `moved` such an element stays empty.
struct MarkupRange {
  size_t begin = 0, end = 0;  // output bytes
  // An element from its open tag to its close tag (else one tag or insertion) and its open tag's spelling.
  bool element = false;
  std::string_view open;
};
// The warning for a segment whose `moved` count is over 0: "NAME:LINE: ..." (NAME alone without a line).
std::string moved_elements_warning(const std::string& name, const Segment& segment, size_t moved);

std::string project_markup(const Segment& source, const std::string& target,
                           const std::vector<WordLink>& links, const TextEscape& escape,
                           std::vector<MarkupRange>* markup = nullptr, size_t* moved = nullptr);

}  // namespace documents
