#include "pipeline/segmenter.h"

#include <string_view>

#include "tokenizer/long_sentence.h"
#include "tokenizer/readable_text.h"

namespace pipeline {

namespace {

using tokenizer::Span;

std::string_view slice(std::string_view text, size_t begin, size_t end) {
  return text.substr(begin, end - begin);
}

// The sentences of a line, or the whole line trimmed when there is no splitter.
std::vector<Span> sentences(const std::string& line, const tokenizer::SentenceSplitter* splitter) {
  if (splitter) return splitter->split(line);
  const Span all = tokenizer::trim_whitespace(line, {0, line.size()});
  if (all.begin == all.end) return {};
  return {all};
}

}  // namespace

SegmentedLines segment_lines(const std::vector<std::string>& lines, const SegmentRules& rules) {
  SegmentedLines out;
  out.lines.resize(lines.size());
  const size_t byte_cap = static_cast<size_t>(rules.max_tokens) * tokenizer::kMaxBytesPerToken;
  const auto count = [&](const std::string& s) { return static_cast<int>(rules.encode(s).size()); };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    LineLayout& layout = out.lines[i];
    layout.first = out.ids.size();
    std::vector<Span> pieces;
    size_t long_sentences = 0, longest = 0;
    // A piece with nothing to translate is no segment: it stays in the line as it is, between the
    // translations of its neighbours.
    const auto translatable = [&](Span s) {
      return tokenizer::has_letters_or_digits(slice(line, s.begin, s.end));
    };
    const auto encode = [&](Span s) {
      return rules.encode(tokenizer::model_readable(slice(line, s.begin, s.end)));
    };
    for (const Span& s : sentences(line, rules.splitter)) {
      if (!translatable(s)) continue;
      const std::string text(slice(line, s.begin, s.end));
      if (text.size() <= byte_cap) {
        std::vector<int32_t> ids = encode(s);
        if (static_cast<int>(ids.size()) <= rules.max_tokens) {
          pieces.push_back(s);
          out.ids.push_back(std::move(ids));
          out.texts.push_back(tokenizer::model_readable(text));
          continue;
        }
      }
      // Over the limit (or too long to tokenize whole): cut it, keeping its pieces' positions in the line.
      ++long_sentences;
      longest = std::max(longest, text.size());
      for (const Span& p : tokenizer::split_long_sentence(text, rules.max_tokens, count)) {
        const Span in_line{s.begin + p.begin, s.begin + p.end};
        if (!translatable(in_line)) continue;
        pieces.push_back(in_line);
        out.ids.push_back(encode(in_line));
        out.texts.push_back(tokenizer::model_readable(slice(line, in_line.begin, in_line.end)));
      }
    }
    if (pieces.empty()) {
      layout.leading = line;
      continue;
    }
    layout.leading = slice(line, 0, pieces.front().begin);
    for (size_t k = 0; k < pieces.size(); ++k) {
      const size_t next = k + 1 < pieces.size() ? pieces[k + 1].begin : line.size();
      layout.after.emplace_back(slice(line, pieces[k].end, next));
    }
    if (long_sentences > 0) {
      out.warnings.push_back({i, std::to_string(long_sentences) +
                                     (long_sentences == 1 ? " sentence" : " sentences") +
                                     " over the limit of " + std::to_string(rules.max_tokens) +
                                     " tokens (the longest " + std::to_string(longest) +
                                     " bytes) translated in pieces cut at clauses or spaces; the line has " +
                                     std::to_string(pieces.size()) + " segments"});
    }
  }
  return out;
}

std::string rejoin(const LineLayout& layout, const std::vector<std::string>& translations,
                   bool join_unspaced) {
  std::string text = layout.leading;
  for (size_t k = 0; k < translations.size(); ++k) {
    text += translations[k];
    text += k + 1 < translations.size() ? separator(layout, translations, k, join_unspaced) : layout.after[k];
  }
  return text;
}

std::string separator(const LineLayout& layout, const std::vector<std::string>& translations, size_t k,
                      bool join_unspaced) {
  return std::string(join_gap(layout.after[k], translations[k], join_unspaced));
}

std::string_view join_gap(std::string_view source_gap, const std::string& translation, bool join_unspaced) {
  if (source_gap.empty() && !join_unspaced && !translation.empty()) return " ";
  return source_gap;
}

bool writes_without_spaces(const std::string& language) {
  const std::string primary = language.substr(0, language.find_first_of("-_"));
  return primary == "zh" || primary == "ja" || primary == "th" || primary == "lo" || primary == "my" ||
         primary == "km";
}

}  // namespace pipeline
