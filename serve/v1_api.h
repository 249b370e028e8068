// nmt's own endpoints: POST /v1/translate speaks `nmt translate --input-format jsonl --output-format
// jsonl` (the same parser and printer: prefixes, beam sizes, scores, alignments, confidence, flags), and
// POST /v1/attention draws `nmt attention`'s SVG of one sentence.
#pragma once

#include <map>
#include <string>

#include "serve/translation_service.h"

namespace serve {

// `params`: source, target and any output-changing option of the table by its field name (n_best=3,
// alignment=true, min_confidence=0.5; not sampling, whose streams follow a line's place in one input).
// `body`: JSON lines. The answer: one JSON line per input line, as the CLI writes them.
std::string v1_translate(TranslationService& service, const std::map<std::string, std::string>& params,
                         const std::string& body);

// `params`: q (one sentence; a longer text's first), source, target. The cross-attention heatmap.
std::string v1_attention_svg(TranslationService& service, const std::map<std::string, std::string>& params);

}  // namespace serve
