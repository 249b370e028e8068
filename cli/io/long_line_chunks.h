// Lines longer than the read window: the reader hands them out in pieces, each translated and written
// without a line ending until the line's last piece, so memory stays bounded and N lines in are N out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "cli/io/line_reader.h"
#include "tokenizer/sentence_splitter.h"

namespace cli {

// The read window's byte cap (translate_lines): a longer line comes in pieces of at most this many bytes.
inline constexpr std::size_t kWindowBytes = std::size_t{16} << 20;

// Where the first piece of `text` (longer than `max_bytes`) ends, in (0, max_bytes]: at the start of the
// last sentence that begins within it by `splitter`'s rules (so the pieces translate as the whole line
// would), else after the last space or tab, else at a UTF-8 character boundary. No splitter (--no-split):
// no sentence rules.
std::size_t long_line_cut(std::string_view text, std::size_t max_bytes,
                          const tokenizer::SentenceSplitter* splitter);

// long_line_cut as the reader's cutter, with `language`'s splitter (built on the first long line only),
// or none when `split` is false.
LongLineCutter long_line_cutter(const std::string& language, bool split);

// What goes between a piece's translation and the next piece's, by the pipeline's joining rule
// (pipeline::join_gap): nothing when the piece ends in whitespace (its translation keeps it), else one
// space unless the target joins without spaces.
std::string_view piece_separator(const Line& piece, const std::string& translation, bool join_unspaced);

}  // namespace cli
