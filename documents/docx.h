// DOCX: every paragraph (w:p) of the body, headers, footers, footnotes and endnotes translated across its
// runs, each run's formatting carried to the target words through the alignment; every other member of
// the package copied unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/subtitles.h"
#include "documents/zip_package.h"

namespace documents {

std::string translate_docx(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const SegmentTranslator& translate,
                           uint64_t max_inflated = kDefaultMaxInflated, const std::string& language = "");

}  // namespace documents
