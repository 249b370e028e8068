// `nmt convert --from ct2`: a CTranslate2 model directory (model.bin, config.json, vocabularies) plus its
// SentencePiece models -> checkpoint format v1. See docs/convert.md.
#pragma once

#include <string>
#include <vector>

#include "models/convert/convert_common.h"
#include "models/convert/release_languages.h"

namespace models {

struct Ct2Files {
  // Segmentation models; default: DIR/source.spm and DIR/target.spm, else DIR/sentencepiece.model for both.
  std::string source_spm;
  std::string target_spm;
};

// What a package around the model (an Argos Translate package) says about it.
struct Ct2Context {
  LanguagePair languages;  // {} when unknown
  std::vector<std::string> warnings;
  int beam_size = 0;  // the package's decoding settings; 0: CTranslate2's translate_batch defaults
  float length_penalty = 1.0f;
};

// Throws ModelError for unusable or unsupported files (naming the file and the spec, variable or key),
// ConvertUsageError when no SentencePiece model is found or the output directory is unusable.
ConvertReport convert_ct2(const std::string& dir, const Ct2Files& files, const ConvertOptions& options,
                          const Ct2Context& context = {});

// Whether `dir` looks like a CTranslate2 model directory (model.bin and config.json).
bool is_ct2_directory(const std::string& dir);

}  // namespace models
