// `nmt translate --output-format jsonl`: one JSON object per input line.
#pragma once

#include <string>

#include "pipeline/translator.h"

namespace front {

// {"text", "score", "tokens"} of the best hypothesis (tokens: its target pieces, EOS excluded; then
// "alignment", Marian's pairs, when the translation has alignments; "word_scores"; "confidence"; "flags"
// when there are any), plus
// "nbest": the same fields for every hypothesis, best first, when `with_nbest`. One line of JSON.
std::string translation_json(const pipeline::Translation& translation, const tokenizer::Tokenizer& tokenizer,
                             bool with_nbest);

// {"error": message}: the output line of a malformed input line.
std::string error_json(const std::string& message);

}  // namespace front
