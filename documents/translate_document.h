// A whole formatted document translated: read into segments, protected spans taken out, the segments
// translated in batches, their markup projected onto the translations, the document written back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "documents/document_format.h"
#include "documents/pipeline_types.h"

namespace documents {

// `name` labels warnings ("page.html:12: ..."), which go to `warnings`. kText is not a document format.
std::string translate_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings);

}  // namespace documents
