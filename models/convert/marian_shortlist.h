// Marian's binary lexical shortlist (`lex.*.s2t.bin`, as `marian-conv --shortlist ... --dump` writes it and
// the Firefox / Bergamot students ship it), read into nmt's shortlist (models/shortlist.h). Little-endian:
//   u64 magic 0xF11A48D5013417F5, u64 checksum, u64 first_num, u64 best_num, u64 offsets_size,
//   u64 targets_size, u64 offsets[offsets_size], u32 targets[targets_size]
// offsets_size is the source vocabulary's size + 1; source piece s's targets are [offsets[s], offsets[s+1]).
// The checksum is Marian's hash_combine over the u64 words from first_num to the end.
#pragma once

#include <string>

#include "models/shortlist.h"

namespace models {

// Whether the file starts with the magic number.
bool looks_like_marian_shortlist(const std::string& path);

// Marian's selection as nmt's shortlist: the first_num most frequent target pieces (ids 0..first_num-1),
// each source piece's targets, and, where source and target share one vocabulary file, the source piece
// itself (marian-decoder keeps it), rounded up to a multiple of 8 as marian-decoder rounds it. src_vocab and
// tgt_vocab are the converted model's (Marian's + the pad row). Throws ModelError naming `path` for a file
// that is not such a shortlist, is truncated, fails its checksum or names ids outside the vocabularies.
Shortlist read_marian_shortlist(const std::string& path, int src_vocab, int tgt_vocab,
                                bool shared_vocabulary);

}  // namespace models
