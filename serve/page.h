// GET /: one self-contained HTML page (no external assets) to try the server: type text, pick the pair,
// translate, and draw a sentence's attention heatmap. `/?q=TEXT&run=1` fills the text and runs both, so
// a headless browser can check the page without typing.
#pragma once

#include <string>

namespace serve {

const std::string& page_html();

}  // namespace serve
