// Small facts of Markdown's syntax that the reader needs beside md4c's events.
#pragma once

#include <cstddef>
#include <string_view>

namespace documents {

// The character of `&amp;`, `&lt;`, `&gt;` or `&quot;` (the entities the writer spells again); "" for any
// other entity, which is kept as written.
std::string_view decoded_basic_entity(std::string_view entity);

// The end of a link's destination `(...)` or reference `[...]` opening at `at` (nested brackets and
// backslash escapes skipped); `at` itself when no bracket opens there.
size_t after_bracketed(std::string_view text, size_t at);

// The end of a span's closing delimiter at `at`: a link's or image's `](...)` or `][label]`, emphasis's
// and strikethrough's run of `*`, `_` or `~`.
size_t after_closing_delimiter(std::string_view text, size_t at, bool link);

// The length of a GitHub alert's marker line at `at` inside a blockquote (`> [!NOTE]`, `[!WARNING]`, any
// `[!WORD]` alone on its line), its line break and the next line's prefix included; 0 when there is none.
size_t alert_marker_length(std::string_view text, size_t at);

}  // namespace documents
