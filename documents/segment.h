// A document as the translator sees it: verbatim skeleton bytes around translatable segments, each segment
// plain text with its inline markup held as spans over that text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace documents {

// An inline element over [begin, end) of a segment's plain text (byte offsets), with its tags as the source
// spells them. Elements are listed in the order they open, so one that contains another comes first.
struct InlineElement {
  size_t begin = 0, end = 0;
  std::string open, close;
  int order = 0;  // its place among the segment's elements and insertions in source order
};

// Bytes that take no part in the sentence but keep their place in it: a void element (<br>, <img>, a
// comment), a never-translated element, or a protected span (URL, e-mail address, placeholder, inline code).
// `at` is the plain-text offset it stands at; insertions are listed in source order.
struct Insertion {
  size_t at = 0;
  std::string bytes;
  int order = 0;        // as InlineElement::order
  bool spaced = false;  // it stands as a word of its own: written with a space on each side it lacks
};

// A run of text that forms sentences for the model: an HTML block's inline content, a subtitle sentence, a
// Markdown paragraph. `text` is what the model reads (one line, no markup).
struct Segment {
  std::string text;
  std::vector<InlineElement> elements;
  std::vector<Insertion> insertions;
  int line = 0;    // the source line it starts on, for warnings
  char quote = 0;  // an attribute value's quote character ('"' or '\''), which its escape writes as an entity

  // Readers add elements as they open and insertions as they meet them, so `order` follows the source.
  size_t open_element(std::string open_tag) {
    elements.push_back({text.size(), text.size(), std::move(open_tag), "", next_order_++});
    return elements.size() - 1;
  }
  void close_element(size_t index, std::string close_tag) {
    elements[index].end = text.size();
    elements[index].close = std::move(close_tag);
  }
  // Closes the element open last when it holds no text but insertions (a link around an image or code)
  // as one insertion with them, so the projection cannot leave it empty beside what it held. Returns false,
  // changing nothing, when it holds text or nothing at all. `spaced`: it stands between spaces in the source.
  bool close_as_insertion(size_t index, const std::string& close_tag, bool spaced) {
    if (index + 1 != elements.size() || elements[index].begin != text.size()) return false;
    const int order = elements[index].order;
    size_t first_inside = insertions.size();
    while (first_inside > 0 && insertions[first_inside - 1].order > order) --first_inside;
    if (first_inside == insertions.size()) return false;
    Insertion whole{text.size(), std::move(elements[index].open), order, spaced};
    for (size_t i = first_inside; i < insertions.size(); ++i) {
      whole.bytes += insertions[i].bytes;
      whole.spaced = whole.spaced || insertions[i].spaced;
    }
    whole.bytes += close_tag;
    insertions.resize(first_inside);
    elements.pop_back();
    insertions.push_back(std::move(whole));
    return true;
  }
  // Replaces the element open last, and what it holds, by `bytes` (its source bytes) as one insertion: for a
  // footnote mark or a back-link arrow, which the model would read as a word and the projection spread.
  void close_as_verbatim(size_t index, std::string bytes, bool spaced) {
    const int order = elements[index].order;
    text.resize(elements[index].begin);
    elements.resize(index);
    while (!insertions.empty() && insertions.back().order > order) insertions.pop_back();
    insertions.push_back({text.size(), std::move(bytes), order, spaced});
  }
  void insert(std::string bytes, bool spaced = false) {
    insertions.push_back({text.size(), std::move(bytes), next_order_++, spaced});
  }
  bool has_markup() const { return !elements.empty() || !insertions.empty(); }

 private:
  int next_order_ = 0;
};

// A document: parts in order, each verbatim bytes or the translation of one segment.
struct Document {
  struct Part {
    std::string verbatim;
    int segment = -1;  // >= 0: the index of the segment whose translation stands here
  };
  std::vector<Part> parts;
  std::vector<Segment> segments;

  void add_verbatim(std::string bytes) {
    if (!parts.empty() && parts.back().segment < 0) {
      parts.back().verbatim += bytes;
    } else {
      parts.push_back({std::move(bytes), -1});
    }
  }
  void add_segment(Segment segment) {
    parts.push_back({"", static_cast<int>(segments.size())});
    segments.push_back(std::move(segment));
  }
  // The document written out: verbatim parts as they are, each segment as render_segment(index) says.
  template <class RenderSegment>
  std::string assemble(const RenderSegment& render_segment) const {
    std::string out;
    for (const Part& part : parts) {
      if (part.segment < 0) {
        out += part.verbatim;
      } else {
        out += render_segment(part.segment);
      }
    }
    return out;
  }
};

// A segment read from the source bytes [begin, end), which its translation replaces.
struct SourceSpan {
  size_t begin = 0, end = 0;
  Segment segment;
};

// The source with each span's bytes replaced by its segment, spans taken in source order; of overlapping
// spans, which cannot both be spliced, the first one wins.
inline Document splice_spans(std::string_view source, std::vector<SourceSpan> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const SourceSpan& a, const SourceSpan& b) { return a.begin < b.begin; });
  Document document;
  size_t cursor = 0;
  for (SourceSpan& span : spans) {
    if (span.begin < cursor) continue;
    document.add_verbatim(std::string(source.substr(cursor, span.begin - cursor)));
    document.add_segment(std::move(span.segment));
    cursor = span.end;
  }
  document.add_verbatim(std::string(source.substr(cursor)));
  return document;
}

}  // namespace documents
