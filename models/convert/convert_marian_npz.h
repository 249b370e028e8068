// `nmt convert --from marian-npz`: a native Marian transformer release (OPUS-MT's zip, unpacked: an .npz,
// decoder.yml, vocabulary, source.spm, target.spm) -> checkpoint format v1, with native Marian semantics
// (see docs/convert.md).
#pragma once

#include <string>

#include "models/convert/convert_common.h"

namespace models {

// Files of a release; empty fields are found in the release directory (see convert_marian_npz).
struct MarianFiles {
  std::string npz;  // the model; default: decoder.yml's first model, else the only *.npz
  std::string
      source_vocab;  // .yml/.json (piece: id) or .spm (SentencePiece ids); default: decoder.yml vocabs
  std::string target_vocab;
  std::string source_spm;  // segmentation models; default: DIR/source.spm, DIR/target.spm
  std::string target_spm;  //   (or the vocabulary itself when it is an .spm)
  // Marian's binary lexical shortlist (lex.*.s2t.bin), written as the model's shortlist.bin; default:
  // decoder.yml's shortlist when it is one, else none.
  std::string shortlist;
};

// The pad id the converter appends (V-1) gets this output bias: native Marian has no pad entry, so pad must
// take no probability mass in the softmax (exp(-65504 - max) is exactly 0 in float). -65504 is the lowest
// finite half, so the value survives --dtype f16.
constexpr float kMarianPadLogit = -65504.0f;

// Throws ModelError for unusable or unsupported release files, core::UsageError for ambiguous inputs
// (several .npz files, no vocabulary named) or a bad output directory, core::Error for write failures.
ConvertReport convert_marian_npz(const std::string& release_dir, const MarianFiles& files,
                                 const ConvertOptions& options);

}  // namespace models
