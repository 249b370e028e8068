// EPUB: the XHTML content documents the package's OPF manifest lists, its toc.ncx labels and the OPF's
// dc:title and dc:description translated; every other member copied unchanged (mimetype first, stored).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "documents/zip_package.h"

namespace documents {

enum class EpubPart { kXhtml, kNcx, kOpf };

// One member's bytes translated as its kind says (the caller owns the HTML and XML paths).
using EpubMemberTranslator =
    std::function<std::string(EpubPart part, const std::string& member, const std::string& bytes)>;

// The OPF's elements that are translated (the book's metadata besides them is kept).
const std::vector<std::string>& opf_translated_elements();

// Throws core::Error naming `name` for a package without a readable container.xml and OPF.
std::string translate_epub(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const EpubMemberTranslator& translate,
                           uint64_t max_inflated = kDefaultMaxInflated);

}  // namespace documents
