#include "documents/translate_segments.h"

namespace documents {

std::vector<SegmentTranslation> translate_segments(const Translator& translator,
                                                   const TranslateOptions& options,
                                                   const std::vector<Segment>& segments) {
  TranslateOptions aligned = options;
  aligned.alignment = true;
  aligned.n_best = 1;
  std::vector<std::string> lines;
  lines.reserve(segments.size());
  for (const Segment& segment : segments) lines.push_back(segment.text);
  std::vector<SegmentTranslation> out(segments.size());
  if (lines.empty()) return out;
  const std::vector<Translation> translations = translator.translate(lines, aligned);
  for (size_t i = 0; i < segments.size(); ++i) {
    out[i].text = translations[i].texts.empty() ? "" : translations[i].texts[0];
    if (!translations[i].alignments.empty()) out[i].links = translations[i].alignments[0];
  }
  return out;
}

}  // namespace documents
