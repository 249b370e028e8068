#include "models/shortlist.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/atomic_file.h"
#include "core/error.h"
#include "models/blob_crc32.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr char kMagic[8] = {'N', 'M', 'T', 'S', 'L', 'S', 'T', '1'};
constexpr char kMagicRounded[8] = {'N', 'M', 'T', 'S', 'L', 'S', 'T', '2'};  // with round_up
constexpr uint32_t kMaxRoundUp = 64;
// Larger vocabularies than any SentencePiece model: keeps a hostile header from asking for huge buffers.
constexpr uint32_t kMaxShortlistVocab = 1u << 24;

void put(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Reads u32s from the file's bytes, refusing to run past their end.
class Reader {
 public:
  Reader(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  uint32_t next(const char* what) {
    if (bytes_.size() - pos_ < 4) fail(std::string("truncated in ") + what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  size_t remaining_words() const { return (bytes_.size() - pos_) / 4; }
  [[noreturn]] void fail(const std::string& why) const { throw ModelError(path_ + ": shortlist " + why); }
  size_t pos_ = sizeof(kMagic);

 private:
  const std::string& bytes_;
  const std::string& path_;
};

}  // namespace

Shortlist::Shortlist(int src_vocab, int tgt_vocab, int k, std::vector<int32_t> frequent,
                     const std::vector<std::vector<int32_t>>& targets, int round_up)
    : src_vocab_(src_vocab),
      tgt_vocab_(tgt_vocab),
      k_(k),
      round_up_(round_up),
      frequent_(std::move(frequent)) {
  if (static_cast<int>(targets.size()) != src_vocab)
    throw core::Error("Shortlist: one list per source piece");
  if (round_up < 1 || static_cast<uint32_t>(round_up) > kMaxRoundUp)
    throw core::Error("Shortlist: round_up out of range");
  offsets_.push_back(0);
  for (const auto& list : targets) {
    if (static_cast<int>(list.size()) > k) throw core::Error("Shortlist: a list longer than k");
    targets_.insert(targets_.end(), list.begin(), list.end());
    offsets_.push_back(static_cast<uint32_t>(targets_.size()));
  }
}

uint32_t Shortlist::checksum(const std::string& bytes) {
  return blob_crc32(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

void Shortlist::write(const std::string& path) const { core::write_file_atomically(path, serialize()); }

std::string Shortlist::serialize() const {
  std::string out(round_up_ == 1 ? kMagic : kMagicRounded, sizeof(kMagic));
  put(out, static_cast<uint32_t>(src_vocab_));
  put(out, static_cast<uint32_t>(tgt_vocab_));
  put(out, static_cast<uint32_t>(k_));
  put(out, static_cast<uint32_t>(frequent_.size()));
  if (round_up_ != 1) put(out, static_cast<uint32_t>(round_up_));
  for (int32_t id : frequent_) put(out, static_cast<uint32_t>(id));
  for (uint32_t o : offsets_) put(out, o);
  for (int32_t id : targets_) put(out, static_cast<uint32_t>(id));
  put(out, checksum(out));
  return out;
}

Shortlist Shortlist::read(const std::string& path, int src_vocab, int tgt_vocab) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ModelError(path + ": cannot read the shortlist (nmt shortlist builds one)");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Reader in(bytes, path);
  const bool rounded =
      bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagicRounded, sizeof(kMagic)) == 0;
  if (bytes.size() < sizeof(kMagic) + 4 ||
      (!rounded && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0))
    in.fail("file lacks the NMTSLST1 or NMTSLST2 header");
  const uint32_t stored = static_cast<uint32_t>(static_cast<uint8_t>(bytes[bytes.size() - 4])) |
                          static_cast<uint32_t>(static_cast<uint8_t>(bytes[bytes.size() - 3])) << 8 |
                          static_cast<uint32_t>(static_cast<uint8_t>(bytes[bytes.size() - 2])) << 16 |
                          static_cast<uint32_t>(static_cast<uint8_t>(bytes[bytes.size() - 1])) << 24;
  if (checksum(bytes.substr(0, bytes.size() - 4)) != stored)
    in.fail("checksum mismatch (the file is corrupt)");
  Shortlist s;
  const uint32_t src = in.next("the header"), tgt = in.next("the header");
  const uint32_t k = in.next("the header"), n_frequent = in.next("the header");
  const uint32_t round_up = rounded ? in.next("the header") : 1;
  if (round_up < 1 || round_up > kMaxRoundUp) in.fail("round_up out of range");
  if (src != static_cast<uint32_t>(src_vocab) || tgt != static_cast<uint32_t>(tgt_vocab))
    in.fail("is for vocabularies of " + std::to_string(src) + " source and " + std::to_string(tgt) +
            " target pieces, the model has " + std::to_string(src_vocab) + " and " +
            std::to_string(tgt_vocab));
  if (src > kMaxShortlistVocab || tgt > kMaxShortlistVocab || k > tgt || n_frequent > tgt)
    in.fail("header out of range");
  if (in.remaining_words() < 1) in.fail("truncated");
  const size_t words = in.remaining_words() - 1;  // the checksum is the last word
  if (words < n_frequent + static_cast<size_t>(src) + 1) in.fail("truncated");
  s.src_vocab_ = src_vocab;
  s.tgt_vocab_ = tgt_vocab;
  s.k_ = static_cast<int>(k);
  s.round_up_ = static_cast<int>(round_up);
  const auto target_id = [&](const char* what) {
    const uint32_t id = in.next(what);
    if (id >= tgt)
      in.fail(std::string(what) + " holds id " + std::to_string(id) + ", not below " + std::to_string(tgt));
    return static_cast<int32_t>(id);
  };
  for (uint32_t i = 0; i < n_frequent; ++i) s.frequent_.push_back(target_id("the frequent pieces"));
  s.offsets_.resize(src + 1);
  for (uint32_t i = 0; i <= src; ++i) {
    s.offsets_[i] = in.next("the offsets");
    const uint32_t previous = i == 0 ? 0 : s.offsets_[i - 1];
    if (s.offsets_[i] < previous || s.offsets_[i] - previous > k || (i == 0 && s.offsets_[0] != 0))
      in.fail("offsets out of order at source piece " + std::to_string(i));
  }
  if (words - n_frequent - (src + 1) != s.offsets_[src])
    in.fail("holds " + std::to_string(words - n_frequent - (src + 1)) + " targets, its offsets say " +
            std::to_string(s.offsets_[src]));
  s.targets_.reserve(s.offsets_[src]);
  for (uint32_t i = 0; i < s.offsets_[src]; ++i) s.targets_.push_back(target_id("the targets"));
  return s;
}

std::vector<int32_t> Shortlist::vocabulary(const std::vector<std::vector<int32_t>>& sources,
                                           const std::vector<int32_t>& always) const {
  std::vector<uint8_t> kept(static_cast<size_t>(tgt_vocab_), 0);
  for (int32_t id : frequent_) kept[id] = 1;
  for (const auto& source : sources) {
    for (int32_t s : source) {
      if (s < 0 || s >= src_vocab_) continue;
      for (const int32_t* t = begin(s); t != end(s); ++t) kept[*t] = 1;
    }
  }
  if (round_up_ > 1) {
    int count = 0;
    for (uint8_t k : kept) count += k;
    for (int32_t id = static_cast<int32_t>(frequent_.size()); id < tgt_vocab_ && count % round_up_ != 0;
         ++id) {
      if (!kept[id]) {
        kept[id] = 1;
        ++count;
      }
    }
  }
  for (int32_t id : always) {
    if (id >= 0 && id < tgt_vocab_) kept[id] = 1;
  }
  std::vector<int32_t> ids;
  for (int32_t id = 0; id < tgt_vocab_; ++id) {
    if (kept[id]) ids.push_back(id);
  }
  return ids;
}

}  // namespace models
