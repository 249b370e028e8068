// `nmt convert --from marian-npz`, step 1: a release directory's decoder configuration (decoder.yml, else a
// Bergamot package's config*.yml), model file, vocabularies and SentencePiece models, found and checked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_yaml.h"

namespace models {

// A vocabulary: Marian .yml / .json (piece -> id), or a SentencePiece model (its own ids).
struct MarianVocab {
  std::string path;
  bool spm = false;
  std::vector<std::pair<std::string, int32_t>> entries;  // yml/json only
  int32_t size = 0;                                      // max id + 1
  int32_t eos = -1, unk = -1;
};

struct MarianRelease {
  std::string decoder_path;  // the configuration read; DIR/decoder.yml, named in errors, when none
  std::unique_ptr<FlatYaml> decoder_yml;  // null when the release has none
  MarianFiles files;                      // every field filled in
  MarianVocab source_vocab, target_vocab;
};

// Throws ModelError for missing or unusable files, core::UsageError for ambiguous inputs.
MarianRelease read_marian_release(const std::string& dir, const MarianFiles& given);

}  // namespace models
