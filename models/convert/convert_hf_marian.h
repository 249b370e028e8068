// `nmt convert --from hf-marian`: a Hugging Face MarianMT checkpoint (OPUS-MT) -> checkpoint format v1.
// See docs/convert.md.
#pragma once

#include <string>

#include "models/convert/convert_common.h"

namespace models {

// SRC_DIR holds config.json, model.safetensors or pytorch_model.bin (the first when both are there),
// source.spm, target.spm, vocab.json (+ target_vocab.json when the vocabularies are separate) and
// optionally generation_config.json. Throws ModelError for
// unusable or unsupported source files, core::UsageError for a bad output directory, core::Error for
// I/O failures while writing. A failed conversion leaves no model.json in the output directory.
ConvertReport convert_hf_marian(const std::string& source_dir, const ConvertOptions& options);

}  // namespace models
