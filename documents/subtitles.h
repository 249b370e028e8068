// SRT and WebVTT: every byte but the cue text kept (indices, timings, cue settings, headers, NOTE and
// STYLE blocks), the same cues in the same order. Cues are joined into sentences, each translated once,
// and its words go back to the cues through the word alignment, each cue's text wrapped at 42 columns or
// at the source cue's widest line if wider.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "documents/segment.h"
#include "documents/translate_segments.h"

namespace documents {

// Translates segments (and may take protected spans out of them first).
using SegmentTranslator = std::function<std::vector<SegmentTranslation>(std::vector<Segment>&)>;

// `name` labels warnings ("film.srt:12: ..."). A cue whose lines after the first open with a speaker's dash
// is a dialogue: each line is translated as a sentence of its own and written on its own line after its
// dash. `webvtt`: character references are read and written as WebVTT spells them (cue_text.h).
std::string translate_subtitles(std::string_view bytes, const std::string& name,
                                std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                bool webvtt);

// Receives a translated subtitle file piece by piece, in order.
using SubtitleWriter = std::function<void(std::string_view piece)>;

// Told the file's bytes [from, to) that a window holds before it is translated (for progress).
using WindowStart = std::function<void(size_t from, size_t to)>;

// The same, read, translated and handed to `write` a window of cues at a time (some thousand cues, ending
// at a sentence's end), so memory beyond `bytes` stays that of a window whatever the file's length.
void write_translated_subtitles(std::string_view bytes, const std::string& name,
                                std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                bool webvtt, const SubtitleWriter& write, const WindowStart& starting = {});

// The cue's text lines re-wrapped: words (tags count as part of their word, not as columns) filled into
// lines of at most `width` code points; a word longer than that stands alone.
std::vector<std::string> wrap_cue(const std::string& text, size_t width);

}  // namespace documents
