#include "pipeline/word_alignment.h"

#include <algorithm>
#include <stdexcept>

namespace pipeline {

namespace {
const std::string kWordStart = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary
}

std::vector<int> piece_words(const std::vector<std::string>& pieces) {
  std::vector<int> words(pieces.size(), -1);
  int word = -1;
  bool pending = false;  // a bare "▁" began a word that its next piece fills
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    if (p.empty()) continue;
    const bool starts = p.compare(0, kWordStart.size(), kWordStart) == 0;
    if ((starts || word < 0) && !pending) ++word;
    pending = p == kWordStart;
    words[i] = word;
  }
  return words;
}

std::vector<float> alignment_weights(const models::AttentionMatrices& attention, int layer, int head) {
  const std::vector<float>& cross = attention.cross.at(layer);
  const size_t cells = static_cast<size_t>(attention.target_len) * attention.source_len;
  if (cross.size() != cells * attention.n_heads)
    throw std::logic_error("alignment_weights: layer not recorded");
  if (head >= attention.n_heads) throw std::logic_error("alignment_weights: no head " + std::to_string(head));
  if (head >= 0) return std::vector<float>(cross.begin() + head * cells, cross.begin() + (head + 1) * cells);
  std::vector<float> mean(cells, 0.0f);
  for (int h = 0; h < attention.n_heads; ++h) {
    for (size_t i = 0; i < cells; ++i) mean[i] += cross[h * cells + i];
  }
  for (float& x : mean) x /= static_cast<float>(attention.n_heads);
  return mean;
}

std::vector<WordLink> align_words(const std::vector<float>& weights, int cols,
                                  const std::vector<int>& target_words,
                                  const std::vector<int>& source_words) {
  int n_source = 0, n_target = 0;
  for (int w : source_words) n_source = std::max(n_source, w + 1);
  for (int w : target_words) n_target = std::max(n_target, w + 1);
  std::vector<WordLink> links;
  if (n_source == 0) return links;
  const size_t rows = std::min(target_words.size(), weights.size() / cols);
  std::vector<double> sums(static_cast<size_t>(n_target) * n_source, 0.0);
  for (size_t i = 0; i < rows; ++i) {
    if (target_words[i] < 0) continue;
    for (int j = 0; j < cols && j < static_cast<int>(source_words.size()); ++j) {
      if (source_words[j] >= 0) sums[target_words[i] * n_source + source_words[j]] += weights[i * cols + j];
    }
  }
  for (int t = 0; t < n_target; ++t) {
    const double* row = &sums[static_cast<size_t>(t) * n_source];
    links.push_back({static_cast<int>(std::max_element(row, row + n_source) - row), t});
  }
  return links;
}

std::string format_alignment(const std::vector<WordLink>& links) {
  std::string out;
  for (const WordLink& l : links) {
    if (!out.empty()) out += ' ';
    out += std::to_string(l.source) + '-' + std::to_string(l.target);
  }
  return out;
}

}  // namespace pipeline
