// The one place documents call the translator: segments' plain texts in, translations and word alignments
// out, batched like plain text's lines.
#pragma once

#include <string>
#include <vector>

#include "documents/pipeline_types.h"
#include "documents/segment.h"

namespace documents {

struct SegmentTranslation {
  std::string text;
  std::vector<WordLink> links;     // every target word linked to one source word
  std::vector<std::string> flags;  // the translator's codes for what looks wrong (pipeline::Translation)
  float confidence = 1.0f;         // 1 for a segment the model did not read
};

// One per segment, same order. `options` as resolved for plain text; alignment is turned on here. A segment
// without letters (a version, a date, a footnote mark) is not given to the model: it is its own translation.
std::vector<SegmentTranslation> translate_segments(const Translator& translator,
                                                   const TranslateOptions& options,
                                                   const std::vector<Segment>& segments);

}  // namespace documents
