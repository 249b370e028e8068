// A whole formatted document translated: read into segments, protected spans taken out, the segments
// translated in batches, their markup projected onto the translations, the document written back.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "documents/document_format.h"
#include "documents/pipeline_types.h"
#include "documents/translate_segments.h"
#include "documents/zip_package.h"

namespace documents {

// What a caller may follow of a document's translation; both optional.
struct DocumentHooks {
  // Each segment once translated: where it starts ("page.html:12") and its translation's flags and
  // confidence, for --report and --flag-warnings.
  std::function<void(const std::string& position, const SegmentTranslation& translation)> segment_done;
  // The document's bytes [from, to) go to the translator next; it counts its work into the counter
  // returned (TranslateOptions::progress), for --progress.
  std::function<TranslateProgress*(uint64_t from, uint64_t to)> start_window;
};

// `name` labels warnings ("page.html:12: ..."), which go to `warnings`. kText is not a document format.
// A zip package's members read inflate to `max_inflated` bytes at most (documents/zip_package.h).
std::string translate_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings,
                               uint64_t max_inflated = kDefaultMaxInflated, const DocumentHooks& hooks = {});

// Receives a translated document piece by piece, in order.
using DocumentWriter = std::function<void(std::string_view piece)>;

// An HTML page is read, translated and written a chunk at a time (documents/html_chunks.h), so its memory
// stays near that of a chunk of about this size (its bytes parse into a tree some 30 times as big).
inline constexpr size_t kHtmlChunkBytes = 256 * 1024;

// translate_document's output handed to `write`: an HTML page one chunk at a time, subtitles a window of
// cues at a time, the other formats whole.
void write_translated_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, const DocumentWriter& write,
                               size_t html_chunk_bytes = kHtmlChunkBytes,
                               uint64_t max_inflated = kDefaultMaxInflated, const DocumentHooks& hooks = {});

}  // namespace documents
