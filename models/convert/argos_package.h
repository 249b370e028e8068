// `nmt convert --from argos`: an Argos Translate package (a .argosmodel zip, or its unpacked directory:
// metadata.json, the CTranslate2 model model/, sentencepiece.model) -> checkpoint format v1. See
// docs/convert.md.
#pragma once

#include <string>

#include "models/convert/convert_common.h"

namespace models {

// Argos Translate's own decoding settings (argostranslate/translate.py's translate_batch call).
constexpr int kArgosBeamSize = 4;
constexpr float kArgosLengthPenalty = 0.2f;

// A *.argosmodel file, or a directory holding metadata.json and model/.
bool is_argos_package(const std::string& source);

// Throws ModelError for unusable or unsupported packages (bpe.model, a target_prefix, a package type
// other than translate), naming the file and the field; the CTranslate2 model's refusals as convert_ct2.
ConvertReport convert_argos(const std::string& source, const ConvertOptions& options);

}  // namespace models
