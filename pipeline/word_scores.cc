#include "pipeline/word_scores.h"

#include "pipeline/word_alignment.h"

namespace pipeline {

std::vector<float> word_scores(const std::vector<std::string>& pieces,
                               const std::vector<float>& token_scores) {
  const std::vector<int> words = piece_words(pieces);
  std::vector<float> scores;
  float pending = 0.0f;  // scores seen before the first word
  for (size_t i = 0; i < token_scores.size(); ++i) {
    const int word = i < words.size() ? words[i] : -1;
    if (word >= 0 && word >= static_cast<int>(scores.size())) {
      scores.resize(word + 1, 0.0f);
      if (word == 0) scores[0] = pending;
    }
    if (word >= 0) {
      scores[word] += token_scores[i];
    } else if (scores.empty()) {
      pending += token_scores[i];
    } else {
      scores.back() += token_scores[i];
    }
  }
  return scores;
}

}  // namespace pipeline
