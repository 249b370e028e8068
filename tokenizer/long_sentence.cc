#include "tokenizer/long_sentence.h"

#include <algorithm>

#include "core/utf8_chars.h"

namespace tokenizer {

namespace {

enum Level { kSentence, kClause, kSpace, kCharacter };

bool is_blank_byte(char c) { return c == ' ' || c == '\t'; }

bool is_boundary(std::string_view s, size_t i, Level level) {
  const char c = s[i];
  const bool next_is_space = i + 1 < s.size() && is_blank_byte(s[i + 1]);
  switch (level) {
    case kSentence:
      return (c == '.' || c == '!' || c == '?') && next_is_space;
    case kClause:
      return (c == ',' || c == ';' || c == ':') && next_is_space;
    case kSpace:
      return is_blank_byte(c);
    case kCharacter:
      return false;  // handled by split_characters
  }
  return false;
}

using core::next_code_point;

class LongSentenceSplitter {
 public:
  LongSentenceSplitter(std::string_view text, int limit, const std::function<int(const std::string&)>& count)
      : text_(text),
        limit_(limit),
        count_(count),
        overhead_(count("")),
        byte_cap_(static_cast<size_t>(limit) * kMaxBytesPerToken) {}

  std::vector<Span> run() {
    const Span all = trim_whitespace(text_, {0, text_.size()});
    if (all.begin == all.end) return {};
    if (fits(all)) return {all};
    split(all, kSentence);
    return std::move(out_);
  }

 private:
  int count(Span s) const { return count_(std::string(text_.substr(s.begin, s.end - s.begin))); }
  bool fits(Span s) const { return s.end - s.begin <= byte_cap_ && count(s) <= limit_; }

  // Tokens a unit adds to a piece (its own count without the overhead); too long to count: over the limit.
  int tokens_of(Span unit) const {
    const Span t = trim_whitespace(text_, unit);
    if (t.begin == t.end) return 0;
    if (t.end - t.begin > byte_cap_) return limit_ + 1;
    return count(t) - overhead_;
  }

  // Appends `piece` if it fits, else cuts it at the next level.
  void emit(Span piece, Level level) {
    const Span t = trim_whitespace(text_, piece);
    if (t.begin == t.end) return;
    if (fits(t)) {
      out_.push_back(t);
    } else if (level == kCharacter) {
      split_characters(t);
    } else {
      split(t, static_cast<Level>(level + 1));
    }
  }

  // Greedy: units (each ending at a boundary of the level, with the blanks after it) are added to the
  // current piece while the sum of their token counts fits, so each unit is tokenized once.
  void split(Span span, Level level) {
    if (level == kCharacter) return emit(span, level);
    const int budget = limit_ - overhead_;
    Span current{span.begin, span.begin};
    int current_tokens = 0;
    size_t start = span.begin;
    auto add_unit = [&](size_t end) {
      const Span unit{start, end};
      const int n = tokens_of(unit);
      if (current.end > current.begin && current_tokens + n > budget) {
        emit(current, static_cast<Level>(level));
        current = unit;
        current_tokens = n;
      } else {
        current.end = end;
        current_tokens += n;
      }
      start = end;
    };
    for (size_t i = span.begin; i < span.end; ++i) {
      if (!is_boundary(text_, i, level)) continue;
      size_t end = i + 1;
      while (end < span.end && is_blank_byte(text_[end])) ++end;
      add_unit(end);
      i = end - 1;
    }
    if (start < span.end) add_unit(span.end);
    emit(current, level);
  }

  // No boundary left: runs of up to `budget` code points, halved until they fit.
  void split_characters(Span span) {
    const size_t budget = static_cast<size_t>(std::max(1, limit_ - overhead_));
    size_t pos = span.begin;
    while (pos < span.end) {
      std::vector<size_t> ends;  // ends of the next code points
      for (size_t e = pos; e < span.end && ends.size() < budget;)
        ends.push_back(e = next_code_point(text_, e));
      size_t n = ends.size();
      while (n > 1 && !fits({pos, ends[n - 1]})) n /= 2;
      const Span piece = trim_whitespace(text_, {pos, ends[n - 1]});
      if (piece.begin < piece.end) out_.push_back(piece);
      pos = ends[n - 1];
    }
  }

  std::string_view text_;
  int limit_;
  const std::function<int(const std::string&)>& count_;
  int overhead_;
  size_t byte_cap_;
  std::vector<Span> out_;
};

}  // namespace

std::vector<Span> split_long_sentence(std::string_view text, int limit,
                                      const std::function<int(const std::string&)>& count) {
  return LongSentenceSplitter(text, limit, count).run();
}

}  // namespace tokenizer
