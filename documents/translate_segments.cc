#include "documents/translate_segments.h"

#include "documents/letters.h"

namespace documents {
namespace {

// A segment without letters as its own translation, each word linked to itself.
SegmentTranslation kept_as_written(const std::string& text) {
  SegmentTranslation kept;
  kept.text = text;
  int word = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ' ' && (i == 0 || text[i - 1] == ' ')) {
      kept.links.push_back({word, word});
      ++word;
    }
  }
  return kept;
}

}  // namespace

std::vector<SegmentTranslation> translate_segments(const Translator& translator,
                                                   const TranslateOptions& options,
                                                   const std::vector<Segment>& segments) {
  TranslateOptions aligned = options;
  aligned.alignment = true;
  aligned.n_best = 1;
  std::vector<std::string> lines;
  std::vector<size_t> translated;  // the segments the model reads: those with a letter
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!has_letter(segments[i].text)) continue;
    lines.push_back(segments[i].text);
    translated.push_back(i);
  }
  std::vector<SegmentTranslation> out(segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    if (!has_letter(segments[i].text)) out[i] = kept_as_written(segments[i].text);
  }
  if (lines.empty()) return out;
  const std::vector<Translation> translations = translator.translate(lines, aligned);
  for (size_t k = 0; k < translated.size(); ++k) {
    SegmentTranslation& t = out[translated[k]];
    t.text = translations[k].texts.empty() ? "" : translations[k].texts[0];
    if (!translations[k].alignments.empty()) t.links = translations[k].alignments[0];
    if (!translations[k].flags.empty()) t.flags = translations[k].flags[0];
    if (!translations[k].confidences.empty()) t.confidence = translations[k].confidences[0];
  }
  return out;
}

}  // namespace documents
