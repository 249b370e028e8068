// Sentences longer than the model can sensibly translate are cut, never truncated: at sentence ends
// first, then at clause punctuation, then at spaces, and only as a last resort between characters.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/sentence_splitter.h"

namespace tokenizer {

// Bytes a SentencePiece piece spans at most (16 code points of up to 4 bytes): a text longer than
// limit * kMaxBytesPerToken has more than `limit` tokens, so it is cut before it is ever tokenized,
// which bounds the memory SentencePiece needs whatever the line.
constexpr size_t kMaxBytesPerToken = 64;

// Pieces of `text` (spans, in order, trimmed, none empty) each with count(piece) <= limit, where count
// gives the model tokens of a piece (EOS included) and count("") is the per-piece overhead. Requires
// limit > count(""). A single character over the limit is still one piece.
std::vector<Span> split_long_sentence(std::string_view text, int limit,
                                      const std::function<int(const std::string&)>& count);

}  // namespace tokenizer
