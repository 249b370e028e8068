// A lexical shortlist (Marian's, CTranslate2's vmap): for each source piece the target pieces likely in
// its translation, plus the most frequent target pieces. A batch's decoder computes logits only over the
// union for its source pieces (models/shortlist_step.h), a small share of a large vocabulary.
//
// File `shortlist.bin` in the model folder (docs/checkpoint.md), little-endian:
//   magic "NMTSLST1", u32 src_vocab, u32 tgt_vocab, u32 k, u32 n_frequent,
//   u32 frequent[n_frequent], u32 offsets[src_vocab + 1] (offsets[0] = 0, non-decreasing, each list at
//   most k long), u32 targets[offsets[src_vocab]], u32 crc32 of every byte before it.
// Magic "NMTSLST2" adds u32 round_up after n_frequent (1..64; "NMTSLST1" means 1).
// Every id is below tgt_vocab; reading checks all of it and names the file in a one-line ModelError.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace models {

class Shortlist {
 public:
  Shortlist() = default;
  // targets[s]: source piece s's target pieces (at most k); frequent: pieces every batch keeps.
  // round_up: the kept pieces (before `always`) are rounded up to a multiple of it with the lowest ids
  // not yet kept from n_frequent on, as marian-decoder's binary shortlists do with 8 (its int8 products'
  // width).
  Shortlist(int src_vocab, int tgt_vocab, int k, std::vector<int32_t> frequent,
            const std::vector<std::vector<int32_t>>& targets, int round_up = 1);

  // Throws ModelError naming `path` for a missing, truncated, corrupt or mismatched file.
  static Shortlist read(const std::string& path, int src_vocab, int tgt_vocab);
  // Throws core::Error naming `path` when it cannot be written.
  void write(const std::string& path) const;
  // The file's bytes, as write() writes them.
  std::string serialize() const;

  int src_vocab() const { return src_vocab_; }
  int tgt_vocab() const { return tgt_vocab_; }
  int k() const { return k_; }
  int round_up() const { return round_up_; }
  const std::vector<int32_t>& frequent() const { return frequent_; }
  // Source piece s's targets: [begin, end).
  const int32_t* begin(int32_t s) const { return targets_.data() + offsets_[s]; }
  const int32_t* end(int32_t s) const { return targets_.data() + offsets_[s + 1]; }

  // The batch's vocabulary: the frequent pieces, `always` (specials, forced prefixes) and each source
  // id's targets, sorted by id without repeats. Source ids outside src_vocab add nothing.
  std::vector<int32_t> vocabulary(const std::vector<std::vector<int32_t>>& sources,
                                  const std::vector<int32_t>& always) const;

  // The CRC-32 a file ends with, of all its bytes before it.
  static uint32_t checksum(const std::string& bytes);

  // The file name in a model folder.
  static constexpr const char* kFileName = "shortlist.bin";

 private:
  int src_vocab_ = 0, tgt_vocab_ = 0, k_ = 0, round_up_ = 1;
  std::vector<int32_t> frequent_;
  std::vector<uint32_t> offsets_;  // [src_vocab + 1]
  std::vector<int32_t> targets_;
};

}  // namespace models
