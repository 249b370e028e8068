// Splitting sentences longer than the model: pieces cover the whole line, in order, each within the limit,
// cut at the gentlest boundary available.
#include <catch2/catch.hpp>

#include "tokenizer/long_sentence.h"

namespace {

int words(const std::string& s) {  // a stand-in tokenizer: one token per word, plus EOS
  int n = 1;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    n += !space && !in_word;
    in_word = !space;
  }
  return n;
}

// The pieces as strings, so the cases read as text.
std::vector<std::string> split(const std::string& text, int limit,
                               const std::function<int(const std::string&)>& count) {
  std::vector<std::string> out;
  for (const tokenizer::Span& s : tokenizer::split_long_sentence(text, limit, count)) {
    out.push_back(text.substr(s.begin, s.end - s.begin));
  }
  return out;
}

std::string squeeze(const std::vector<std::string>& pieces) {
  std::string all;
  for (const auto& p : pieces) all += (all.empty() ? "" : " ") + p;
  return all;
}

}  // namespace

TEST_CASE("long lines split at sentence ends first, then clauses, then spaces, then characters", "[long]") {
  const std::string sentences = "One two three. Four five six. Seven eight nine.";
  auto pieces = split(sentences, 8, words);
  REQUIRE(pieces == std::vector<std::string>{"One two three. Four five six.", "Seven eight nine."});

  const std::string clauses = "a b c, d e f, g h i";
  pieces = split(clauses, 5, words);
  REQUIRE(pieces == std::vector<std::string>{"a b c,", "d e f,", "g h i"});

  const std::string plain = "a b c d e f g";
  pieces = split(plain, 4, words);
  REQUIRE(pieces == std::vector<std::string>{"a b c", "d e f", "g"});

  const std::string one_word = "abcdef";  // a "word" longer than the limit under a char-counting tokenizer
  pieces = split(one_word, 3, [](const std::string& s) { return static_cast<int>(s.size()) + 1; });
  REQUIRE(pieces == std::vector<std::string>{"ab", "cd", "ef"});
}

TEST_CASE("split pieces cover the line exactly and respect the limit", "[long]") {
  std::string line;
  for (int i = 0; i < 3000; ++i) line += i % 13 == 12 ? "end. " : i % 5 == 4 ? "clause, " : "word ";
  line += "tail";
  const auto pieces = split(line, 50, words);
  for (const auto& p : pieces) REQUIRE(words(p) <= 50);
  REQUIRE(squeeze(pieces) == line);  // single spaces in the line, so rejoining with spaces restores it
}

TEST_CASE("multi-byte characters are never cut in half", "[long]") {
  const std::string line = "\xc3\xa4\xc3\xb6\xc3\xbc\xe2\x82\xac";  // äöü€
  const auto pieces = split(line, 3, [](const std::string& s) { return static_cast<int>(s.size()); });
  std::string joined;
  for (const auto& p : pieces) joined += p;
  REQUIRE(joined == line);
  REQUIRE(pieces.size() == 4);
}

TEST_CASE("a huge text without boundaries is cut before it is ever tokenized whole", "[long]") {
  const std::string line(1 << 20, 'x');  // 1 MB, no space or punctuation
  size_t longest_counted = 0;
  const auto count = [&](const std::string& s) {
    longest_counted = std::max(longest_counted, s.size());
    return static_cast<int>(s.size()) + 1;
  };
  const auto pieces = tokenizer::split_long_sentence(line, 200, count);
  REQUIRE(longest_counted <= 200 * tokenizer::kMaxBytesPerToken);
  size_t covered = 0;
  for (const auto& p : pieces) {
    REQUIRE(p.begin == covered);
    REQUIRE(count(line.substr(p.begin, p.end - p.begin)) <= 200);
    covered = p.end;
  }
  REQUIRE(covered == line.size());
}

TEST_CASE("spans keep the original text between pieces", "[long]") {
  const std::string text = "one two,\tthree four";
  const auto spans = tokenizer::split_long_sentence(text, 3, words);
  REQUIRE(spans.size() == 2);
  REQUIRE(text.substr(spans[0].end, spans[1].begin - spans[0].end) == "\t");
}
