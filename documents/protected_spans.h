// Protected spans: URLs, e-mail addresses and placeholders ({name}, {{x}}, %s, %1$s) taken out of a
// segment's text as insertions, so the model never sees them and they come back byte for byte, once.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "documents/segment.h"

namespace documents {

// Moves every protected span of `segment.text` that lies inside one element (or none) into an insertion,
// with one of the spaces beside it (the insertion is then `spaced`), so the text the model reads has no gap.
// `escape`, when given, spells the span as the output format does (an HTML URL's '&' as "&amp;"), since
// insertions are written as they are.
void protect_spans(Segment& segment, const std::function<std::string(std::string_view)>& escape = nullptr);

}  // namespace documents
