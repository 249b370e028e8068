// `nmt convert --from nmt`: an nmt model directory rewritten in another dtype (e.g. the bundled model
// re-quantized to int8). The description and tokenizer files are kept as they are.
#pragma once

#include <string>

#include "models/convert/convert_common.h"

namespace models {

// Reads SRC_DIR (checked as translating checks it: checksum, shapes, scales) and writes it with
// options.dtype (kKeep: the source's own f16/f32 choice; i8 sources are read as q x scale).
ConvertReport convert_nmt(const std::string& source_dir, const ConvertOptions& options);

}  // namespace models
