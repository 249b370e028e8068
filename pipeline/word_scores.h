// Marian's --word-scores: a log-probability per word of a translation, its pieces' summed.
#pragma once

#include <string>
#include <vector>

namespace pipeline {

// One score per word of piece_words(pieces), the sum of its pieces' token_scores (token_scores[i] belongs
// to pieces[i]). A score with no word of its own (EOS, the entries past the pieces, an empty piece) counts
// in the word before it, or the first word when none is before: the scores sum to the path score.
// No words: no scores.
std::vector<float> word_scores(const std::vector<std::string>& pieces,
                               const std::vector<float>& token_scores);

}  // namespace pipeline
