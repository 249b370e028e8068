// The pipeline's Translation (parallel arrays) as the library's (an array of Hypothesis structs).
#pragma once

#include <vector>

#include "nmt/results.h"
#include "pipeline/translation.h"
#include "pipeline/translator.h"

namespace api {

std::vector<nmt::Translation> convert_translations(const pipeline::Translator& translator,
                                                   const std::vector<pipeline::Translation>& translations);

}  // namespace api
