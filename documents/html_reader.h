// HTML read with gumbo into translatable segments over the source bytes: block elements' inline content
// (pass kText) or the values of alt/title/placeholder/aria-label (pass kAttributes). Every byte outside a
// segment stays verbatim, so the output is the source with only translated text spliced in.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/segment.h"

namespace documents {

enum class HtmlPass { kText, kAttributes };

// Markup the parser had to repair inside a block (misnested or implied inline tags) keeps that block
// untranslated, with a warning "NAME:LINE: ..." in `warnings`; `first_line` is the line `html` starts on
// in its page (a chunk of it, documents/html_chunks.h).
Document read_html(std::string_view html, HtmlPass pass, const std::string& name,
                   std::vector<std::string>* warnings, int first_line = 1);

// Text as HTML spells it: '&', '<', '>' and U+00A0 as entities.
std::string escape_html_text(std::string_view text);
// An attribute value inside `quote` (Segment::quote): escape_html_text's and that quote too ("&quot;",
// "&#39;"), so no character of the value ends it.
std::string escape_html_attribute(std::string_view text, char quote);
// As XHTML (XML) spells them: U+00A0 as &#160;, since XML has no &nbsp;.
std::string escape_xhtml_text(std::string_view text);
std::string escape_xhtml_attribute(std::string_view text, char quote);

}  // namespace documents
