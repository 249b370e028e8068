// A piece <-> id table read from a JSON object {"piece": id, ...} (OPUS-MT's vocab.json).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tokenizer {

// The largest SentencePiece model or vocabulary file we read (the largest OPUS-MT ones are a few MB):
// a crafted one cannot parse into gigabytes.
constexpr uint64_t kMaxTokenizerFileBytes = 64u << 20;
constexpr uint64_t kMaxVocabularyBytes = 16u << 20;

class Vocabulary {
 public:
  // Throws core::Error naming the file on unreadable JSON, non-integer or negative ids, duplicate ids.
  static Vocabulary load_json(const std::string& path);

  int32_t size() const { return static_cast<int32_t>(pieces_.size()); }  // max id + 1
  // The piece's id, or `missing` if the vocabulary lacks it.
  int32_t id(const std::string& piece, int32_t missing) const;
  // The id's piece, or "" for ids with no piece.
  const std::string& piece(int32_t id) const;

 private:
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> pieces_;
};

}  // namespace tokenizer
