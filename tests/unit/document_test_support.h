// Helpers shared by the document reader tests: an identity "translation" that gives the source back.
#pragma once

#include <string>
#include <vector>

#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/segment.h"
#include "documents/translate_segments.h"

namespace test {

// Each segment "translated" as itself, every word aligned to itself.
inline documents::SegmentTranslation identity(const documents::Segment& segment) {
  documents::SegmentTranslation t{segment.text, {}};
  int words = 0;
  bool in_word = false;
  for (char c : segment.text) {
    if (c != ' ' && !in_word) t.links.push_back({words, words}), ++words;
    in_word = c != ' ';
  }
  return t;
}

// The document written back with every segment translated as itself.
inline std::string render_identity(documents::Document& document, const documents::TextEscape& escape) {
  for (documents::Segment& segment : document.segments) documents::protect_spans(segment);
  return document.assemble([&](int index) {
    const documents::Segment& segment = document.segments[index];
    const documents::SegmentTranslation t = identity(segment);
    return documents::project_markup(segment, t.text, t.links, escape);
  });
}

inline std::vector<std::string> texts(const documents::Document& document) {
  std::vector<std::string> out;
  for (const documents::Segment& s : document.segments) out.push_back(s.text);
  return out;
}

}  // namespace test
