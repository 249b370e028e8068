// Generic XML read with pugixml into translatable segments over the source bytes: an element with text of
// its own is a segment, its child elements inline elements over that text. Every byte outside a segment
// stays verbatim (declaration, doctype, comments, processing instructions, CDATA, entities, whitespace).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "documents/segment.h"

namespace documents {

// Input a strict XML parser rejects.
struct MalformedXml : core::Error {
  using core::Error::Error;
};

// Throws MalformedXml "NAME:LINE:COLUMN: malformed XML: ..." for input a strict XML parser rejects.
// Elements with translate="no" or its:translate="no" are kept whole; under xml:space="preserve" every
// whitespace run but a single space is kept as it is.
// With `only` given, only elements of those names (as the source spells them) are segments.
Document read_xml(std::string_view xml, const std::string& name, const std::vector<std::string>& only = {});

// Text as XML spells it: '&', '<' and '>' as entities.
std::string escape_xml_text(std::string_view text);

}  // namespace documents
