// The language a document declares it is in, set to the language it is translated into: an HTML or XHTML
// page's root `lang` and `xml:lang` (a reader, a screen reader and a spell checker go by them). Elements
// inside that declare a language of their own keep it: they hold a passage in that language.
#pragma once

#include <string>
#include <string_view>

namespace documents {

// `html` with the values of the `lang` and `xml:lang` attributes of its root <html> start tag (the first
// tag after a BOM, the XML declaration, the doctype, comments and white space) set to `language`; unchanged
// when `language` is empty, the page has no such tag first or the tag declares no language.
std::string retarget_root_language(std::string_view html, const std::string& language);

}  // namespace documents
