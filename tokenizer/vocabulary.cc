#include "tokenizer/vocabulary.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/regular_file.h"

namespace tokenizer {

Vocabulary Vocabulary::load_json(const std::string& path) {
  const std::string text = core::read_regular_file(path, "vocabulary", kMaxVocabularyBytes);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw core::Error(path + ": vocabulary is not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw core::Error(path + ": vocabulary must be a JSON object {\"piece\": id}");
  Vocabulary v;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= (1 << 24)) {
      throw core::Error(path + ": piece '" + it.key() + "': id must be an integer in [0, 2^24)");
    }
    const int32_t id = static_cast<int32_t>(it->get<int64_t>());
    if (static_cast<size_t>(id) >= v.pieces_.size()) v.pieces_.resize(id + 1);
    if (!v.pieces_[id].empty()) throw core::Error(path + ": id " + std::to_string(id) + " used twice");
    v.pieces_[id] = it.key();
    v.ids_[it.key()] = id;
  }
  return v;
}

int32_t Vocabulary::id(const std::string& piece, int32_t missing) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? missing : it->second;
}

const std::string& Vocabulary::piece(int32_t id) const {
  static const std::string empty;
  return id >= 0 && static_cast<size_t>(id) < pieces_.size() ? pieces_[id] : empty;
}

}  // namespace tokenizer
