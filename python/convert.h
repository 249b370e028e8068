// Python values to and from the library's: CTranslate2's shapes (lists of strings or of tokens in, results
// with .hypotheses and .scores out) over nmt::Translator's.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "nmt/options.h"
#include "nmt/results.h"

namespace nmt_python {

namespace py = pybind11;

// A batch as texts: each item a str, or a list of SentencePiece tokens ("▁A", "▁dog") joined back into
// text. *tokens tells whether the items were tokens (results then hold tokens too).
std::vector<std::string> texts_of(const py::list& batch, bool* tokens);

// The keyword arguments translate_batch, translate_file and translate_document share, into Options.
nmt::Options options_of(const py::kwargs& kwargs);

// CTranslate2's TranslationResult: .hypotheses (str, or tokens when the input was tokens), .scores
// (empty unless return_scores), and ours beside them; result[i] is {"tokens" or "text", "score"}.
struct TranslationResult {
  py::list hypotheses;
  py::list scores;
  py::list raw_scores;
  py::list confidences;
  py::list flags;
  py::list alignments;
  py::list word_scores;
  std::string detected_language;
  bool tokens = false;
};
TranslationResult result_of(const nmt::Translation& translation, bool tokens, bool return_scores);

// CTranslate2's ScoringResult: .tokens and .log_probs, with their sum and normalised score.
struct ScoringResult {
  std::vector<std::string> tokens;
  std::vector<float> log_probs;
  float score = 0;
  float normalized_score = 0;
};

void register_results(py::module_& m);

}  // namespace nmt_python
