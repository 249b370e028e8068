// Word alignments of translate()'s lines: each segment is aligned on its own from its recorded attention,
// then its words are placed among the line's.
#pragma once

#include <string>
#include <vector>

#include "pipeline/segmenter.h"
#include "pipeline/translator.h"
#include "pipeline/word_alignment.h"

namespace pipeline {

// The cross-attention a translation with `options` records to align words: one layer's.
models::AttentionRequest alignment_request(const Translator& translator, const TranslateOptions& options);

// The number of runs of non-whitespace in `text`.
int count_words(const std::string& text);

struct AlignedSegment {
  std::vector<WordLink> links;  // segment_links()
  int source_words = 0;         // words of the segment's source pieces
  std::string translation;      // its decoded text
};

// One segment hypothesis aligned: words counted within the segment (source ids incl. EOS) and within the
// hypothesis's target tokens, whose text is `translation`. Special pieces (EOS, a language tag) belong to
// no word.
AlignedSegment align_segment(const Translator& translator, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& target, const models::AttentionMatrices& attention,
                             const TranslateOptions& options, const std::string& translation);

// Sentences translate_aligned runs together: their attention is held at once, then dropped.
inline constexpr size_t kAlignedSentencesPerGroup = 512;

// Step 2 of Translator::translate with word alignment, for lines without controls or sampling: `sources`
// translated kAlignedSentencesPerGroup at a time (each group batched by length), each group's attention
// turned into its hypotheses' AlignedSegments (`aligned`: [source][hypothesis], the text decoded) and
// dropped before the next group runs, so memory holds one group's attention, not a long paragraph's.
std::vector<std::vector<core::Hypothesis>> translate_aligned(
    const Translator& translator, const std::vector<std::vector<int32_t>>& sources,
    const TranslateOptions& options, std::vector<std::vector<AlignedSegment>>* aligned);

// The line's links: each segment's offset by the words of the segments before it (a word that runs on
// across a segment boundary, as in a sentence cut mid-word, counted once), clamped into the line's words,
// every word of `target_line` linked exactly once (the first link given for it; a word without one takes
// the source word of the word before it, or of the word after it). No links when either line has no word.
std::vector<WordLink> line_links(const LineLayout& layout, const std::vector<AlignedSegment>& segments,
                                 const std::string& source_line, const std::string& target_line,
                                 bool join_unspaced);

}  // namespace pipeline
