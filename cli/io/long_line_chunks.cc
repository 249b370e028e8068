#include "cli/io/long_line_chunks.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "core/utf8_chars.h"
#include "core/utf8_text.h"
#include "pipeline/segmenter.h"

namespace cli {

namespace {

// Bytes before the cap searched for a sentence start, and bytes after it the splitter sees as context
// (a lower-case word after a period continues the sentence). Sentences are far shorter; a longer one is
// cut at a space like any over-long sentence.
constexpr std::size_t kSearchBytes = 4096;
constexpr std::size_t kContextBytes = 256;

using core::code_point_start;

std::size_t sentence_cut(std::string_view text, std::size_t max_bytes,
                         const tokenizer::SentenceSplitter& splitter) {
  const std::size_t lo = code_point_start(text, max_bytes > kSearchBytes ? max_bytes - kSearchBytes : 0);
  const std::size_t hi = code_point_start(text, std::min(text.size(), max_bytes + kContextBytes));
  const std::string_view window = text.substr(lo, hi - lo);
  if (!core::is_valid_utf8(window)) return 0;  // the splitter needs UTF-8; damaged text is cut at a space
  const std::vector<tokenizer::Span> spans = splitter.split(window);
  // The window's first sentence start is where the window begins, not a boundary, and the one after it
  // is judged without the words before the window: only later starts count.
  for (std::size_t k = spans.size(); k-- > 2;) {
    if (lo + spans[k].begin <= max_bytes) return lo + spans[k].begin;
  }
  return 0;
}

}  // namespace

std::size_t long_line_cut(std::string_view text, std::size_t max_bytes,
                          const tokenizer::SentenceSplitter* splitter) {
  max_bytes = std::max<std::size_t>(1, std::min(max_bytes, text.size()));
  if (splitter) {
    if (const std::size_t cut = sentence_cut(text, max_bytes, *splitter)) return cut;
  }
  for (std::size_t i = max_bytes; i-- > 0;) {
    if (text[i] == ' ' || text[i] == '\t') return i + 1;
  }
  const std::size_t cut = code_point_start(text, max_bytes);
  return cut > 0 ? cut : max_bytes;
}

LongLineCutter long_line_cutter(const std::string& language, bool split) {
  struct Lazy {
    std::once_flag once;
    std::unique_ptr<tokenizer::SentenceSplitter> splitter;
  };
  auto lazy = std::make_shared<Lazy>();
  return [lazy, language, split](std::string_view text, std::size_t max_bytes) {
    if (!split) return long_line_cut(text, max_bytes, lazy->splitter.get());
    std::call_once(lazy->once,
                   [&] { lazy->splitter = std::make_unique<tokenizer::SentenceSplitter>(language); });
    return long_line_cut(text, max_bytes, lazy->splitter.get());
  };
}

std::string_view piece_separator(const Line& piece, const std::string& translation, bool join_unspaced) {
  if (!piece.continues || piece.text.empty()) return "";
  const char last = piece.text.back();
  if (last == ' ' || last == '\t') return "";
  return pipeline::join_gap("", translation, join_unspaced);
}

}  // namespace cli
