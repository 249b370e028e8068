// PPTX: every paragraph (a:p) of the slides, their tables and the slide notes translated across its runs,
// each run's formatting (bold, italic, a link in a:rPr) carried to the target words through the alignment;
// line breaks and fields kept whole; every other member of the package copied unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/subtitles.h"
#include "documents/zip_package.h"

namespace documents {

std::string translate_pptx(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const SegmentTranslator& translate,
                           uint64_t max_inflated = kDefaultMaxInflated, const std::string& language = "");

}  // namespace documents
