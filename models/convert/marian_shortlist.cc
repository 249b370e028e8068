#include "models/convert/marian_shortlist.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/regular_file.h"
#include "models/convert/little_endian.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kMagic = 0xF11A48D5013417F5ull;
constexpr size_t kHeaderWords = 6;
// marian-decoder rounds a batch's kept target pieces up to a multiple of 8, its int8 products' width.
constexpr int kMarianRoundUp = 8;
// Marian's shortlists for 32k vocabularies are a few MB; far larger is not one.
constexpr uint64_t kMaxBytes = uint64_t{1} << 30;

// The u64 at word `word` of the file.
uint64_t u64_at(const std::string& bytes, size_t word) { return little_endian(bytes, word * 8, 8); }

// Marian's util::hashMem: boost's hash_combine over u64 words, std::hash<uint64_t> being the identity.
uint64_t marian_checksum(const std::string& bytes) {
  uint64_t seed = 0;
  for (size_t word = 2; word < bytes.size() / 8; ++word)
    seed ^= u64_at(bytes, word) + 0x9e3779b9 + (seed << 6) + (seed >> 2);
  return seed;
}

}  // namespace

bool looks_like_marian_shortlist(const std::string& path) {
  const std::string head = core::regular_file_head(path, 8);
  return head.size() == 8 && u64_at(head, 0) == kMagic;
}

Shortlist read_marian_shortlist(const std::string& path, int src_vocab, int tgt_vocab,
                                bool shared_vocabulary) {
  std::string bytes;
  try {
    bytes = core::read_regular_file(path, "Marian shortlist", kMaxBytes);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  const auto fail = [&](const std::string& problem) -> void {
    throw ModelError(path + ": Marian shortlist: " + problem);
  };
  if (bytes.size() < kHeaderWords * 8 || u64_at(bytes, 0) != kMagic)
    fail("no Marian binary shortlist header (lex.*.s2t.bin)");
  const uint64_t first_num = u64_at(bytes, 2), offsets_size = u64_at(bytes, 4),
                 targets_size = u64_at(bytes, 5);
  if (offsets_size != static_cast<uint64_t>(src_vocab))
    fail("made for " + std::to_string(offsets_size - 1) + " source pieces, the model has " +
         std::to_string(src_vocab - 1));
  if (targets_size > kMaxBytes / 4 || bytes.size() != (kHeaderWords + offsets_size) * 8 + targets_size * 4)
    fail("its size does not match its header (truncated or corrupt)");
  if (marian_checksum(bytes) != u64_at(bytes, 1)) fail("checksum mismatch (the file is corrupt)");
  const size_t targets_at = (kHeaderWords + offsets_size) * 8;
  std::vector<std::vector<int32_t>> targets(static_cast<size_t>(src_vocab));
  int k = 0;
  uint64_t previous = 0;
  for (int s = 0; s + 1 < src_vocab; ++s) {
    const uint64_t begin = u64_at(bytes, kHeaderWords + s), end = u64_at(bytes, kHeaderWords + s + 1);
    if (begin != previous || end < begin || end > targets_size)
      fail("offsets out of order at source piece " + std::to_string(s));
    previous = end;
    std::vector<int32_t>& list = targets[static_cast<size_t>(s)];
    for (uint64_t j = begin; j < end; ++j) {
      const uint32_t id = static_cast<uint32_t>(little_endian(bytes, targets_at + j * 4, 4));
      if (id + 1 >= static_cast<uint64_t>(tgt_vocab))  // the last id is nmt's pad row
        fail("target id " + std::to_string(id) + " is outside the " + std::to_string(tgt_vocab - 1) +
             "-piece vocabulary");
      list.push_back(static_cast<int32_t>(id));
    }
    if (shared_vocabulary && s + 1 < tgt_vocab) list.push_back(s);
    k = std::max(k, static_cast<int>(list.size()));
  }
  if (previous != targets_size) fail("its offsets do not end at its targets' end");
  std::vector<int32_t> frequent;
  for (uint64_t id = 0; id < first_num && id + 1 < static_cast<uint64_t>(tgt_vocab); ++id)
    frequent.push_back(static_cast<int32_t>(id));
  return Shortlist(src_vocab, tgt_vocab, k, std::move(frequent), targets, kMarianRoundUp);
}

}  // namespace models
