// A piece <-> id table read from a JSON object {"piece": id, ...} (OPUS-MT's vocab.json). Held compactly:
// every piece in one string, an offset per id and an open-addressing index of ids, a few bytes per piece
// beyond its text (a map of strings costs ~100), since a large OPUS-MT vocabulary is a visible share of an
// int8 model's memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenizer {

// The largest SentencePiece model or vocabulary file we read (the largest OPUS-MT ones are a few MB):
// a crafted one cannot parse into gigabytes.
constexpr uint64_t kMaxTokenizerFileBytes = 64u << 20;
constexpr uint64_t kMaxVocabularyBytes = 16u << 20;

class Vocabulary {
 public:
  // Throws core::Error naming the file on unreadable JSON, non-integer or negative ids, an id or a piece
  // given twice.
  static Vocabulary load_json(const std::string& path);

  int32_t size() const { return static_cast<int32_t>(spans_.size()); }  // max id + 1
  // The piece's id, or `missing` if the vocabulary lacks it.
  int32_t id(std::string_view piece, int32_t missing) const;
  // The id's piece, or "" for ids with no piece.
  std::string_view piece(int32_t id) const;

 private:
  class Builder;
  struct Span {
    uint32_t start = kNoPiece;  // into text_
    uint32_t size = 0;
  };
  static constexpr uint32_t kNoPiece = UINT32_MAX;

  size_t slot_of(std::string_view piece) const;  // the piece's index slot, or the empty one it would take

  std::string text_;            // every piece, back to back, in file order
  std::vector<Span> spans_;     // [max id + 1]
  std::vector<int32_t> slots_;  // power-of-two open-addressing table of ids, -1 = empty
};

}  // namespace tokenizer
