// What the HTML path does with each element and attribute, declared once (docs/formats.md lists them).
#pragma once

#include <gumbo.h>

#include <string_view>

namespace documents {

// Copied byte for byte, text and attributes: script, style, code, pre, kbd, samp, var, math, svg, textarea,
// and any element with translate="no" or class notranslate.
bool never_translated(const GumboElement& element);
// The elements never translated whatever their attributes and namespace.
bool never_translated_tag(GumboTag tag);
// Inline elements take part in their block's sentences; every other element ends them.
bool is_inline(const GumboElement& element);
bool is_inline_tag(GumboTag tag);
// Elements without content (<br>, <img>, <wbr>): insertions in their sentence.
bool is_void(const GumboElement& element);
// Attributes whose values are text for people: alt, title, placeholder, aria-label.
bool is_translated_attribute(std::string_view name);

}  // namespace documents
