// Helpers shared by the document reader tests: an identity "translation" that gives the source back.
#pragma once

#include <zip.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "documents/html_reader.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/segment.h"
#include "documents/translate_segments.h"

namespace test {

// Each segment "translated" as itself, every word aligned to itself.
inline documents::SegmentTranslation identity(const documents::Segment& segment) {
  documents::SegmentTranslation t;
  t.text = segment.text;
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

// Attribute values written back with every segment translated as itself, each escaped for its own quote.
inline std::string render_identity_attributes(documents::Document& document) {
  for (documents::Segment& segment : document.segments) documents::protect_spans(segment);
  return document.assemble([&](int index) {
    const documents::Segment& segment = document.segments[index];
    const documents::SegmentTranslation t = identity(segment);
    return documents::project_markup(segment, t.text, t.links, [&segment](std::string_view text) {
      return documents::escape_html_attribute(text, segment.quote);
    });
  });
}

inline std::vector<std::string> texts(const documents::Document& document) {
  std::vector<std::string> out;
  for (const documents::Segment& s : document.segments) out.push_back(s.text);
  return out;
}

// A zip package in memory holding `members` (name, content), deflated.
inline std::string zip_of(const std::vector<std::pair<std::string, std::string>>& members) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  for (const auto& [name, text] : members) {
    if (text.empty()) {  // libzip does not take (or free) a buffer of no bytes
      zip_file_add(archive, name.c_str(), zip_source_buffer(archive, nullptr, 0, 0), ZIP_FL_OVERWRITE);
      continue;
    }
    char* copy = static_cast<char*>(std::malloc(text.size()));
    std::memcpy(copy, text.data(), text.size());
    zip_file_add(archive, name.c_str(), zip_source_buffer(archive, copy, text.size(), 1), ZIP_FL_OVERWRITE);
  }
  zip_source_keep(buffer);
  zip_close(archive);
  zip_source_open(buffer);
  zip_source_seek(buffer, 0, SEEK_END);
  const zip_int64_t size = zip_source_tell(buffer);
  zip_source_seek(buffer, 0, SEEK_SET);
  std::string bytes(static_cast<size_t>(size), '\0');
  zip_source_read(buffer, bytes.data(), size);
  zip_source_close(buffer);
  zip_source_free(buffer);
  return bytes;
}

}  // namespace test
