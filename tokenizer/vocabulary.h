// A piece <-> id table read from a JSON object {"piece": id, ...} (OPUS-MT's vocab.json).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tokenizer {

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
