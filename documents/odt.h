// ODT: every paragraph and heading (text:p, text:h) of content.xml and styles.xml (headers, footers)
// translated across its spans and links, each span's style carried to the target words through the
// alignment; every other member of the package copied unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/subtitles.h"
#include "documents/zip_package.h"

namespace documents {

std::string translate_odt(std::string_view bytes, const std::string& name, std::vector<std::string>* warnings,
                          const SegmentTranslator& translate, uint64_t max_inflated = kDefaultMaxInflated,
                          const std::string& language = "");

}  // namespace documents
