// A subtitle cue's text as the model should read it: tags, SSA/ASS override blocks and bidi marks kept
// aside as markup, WebVTT character references decoded, a dialogue line's dash kept apart.
#pragma once

#include <string>
#include <string_view>

#include "documents/segment.h"

namespace documents {

// Appends a cue's text to `segment`: tags (<i>, <v Bob>) as elements, or insertions when unmatched or a
// WebVTT timestamp; SSA/ASS override blocks ({\an8}, {\i1}) as insertions. In WebVTT, `&amp;`, `&lt;`,
// `&gt;`, `&quot;`, `&apos;` and `&nbsp;` become their characters for the model, and the bidi marks
// `&lrm;`/`&rlm;` (and any reference it does not know) stay as insertions, byte for byte.
void add_cue_text(Segment& segment, const std::string& text, bool webvtt);

// The length of a dialogue line's speaker dash ("- ", "– ", "—"), 0 when the line has none.
size_t dialogue_dash_length(std::string_view line);

}  // namespace documents
