// End-to-end on the bundled model: --word-scores, Marian's n-best field order, the length-limit mark and
// the loop guard flags.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

std::string nmt() {
  return "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
         "/multi30k-en-de' --threads 1";
}

std::string translate() { return nmt() + " -b 3"; }

std::vector<std::string> split_on(const std::string& text, const std::string& by) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t at; (at = text.find(by, begin)) != std::string::npos; begin = at + by.size())
    parts.push_back(text.substr(begin, at - begin));
  parts.push_back(text.substr(begin));
  return parts;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines = split_on(text, "\n");
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::vector<double> numbers_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  return values;
}

// A Marian n-best line as Marian's tools read it: fields split on " ||| ", features "NAME= value".
struct NBestLine {
  int line = -1;
  std::string text, alignment;
  std::vector<double> word_scores;
  double f0 = NAN, score = NAN;
};

NBestLine parse_nbest(const std::string& line, bool alignment, bool word_scores) {
  const std::vector<std::string> fields = split_on(line, " ||| ");
  REQUIRE(fields.size() == 4u + (alignment ? 1 : 0) + (word_scores ? 1 : 0));
  NBestLine n;
  size_t f = 0;
  n.line = std::stoi(fields[f++]);
  n.text = fields[f++];
  if (alignment) n.alignment = fields[f++];
  if (word_scores) {
    REQUIRE(fields[f].rfind("WordScores=", 0) == 0);
    n.word_scores = numbers_of(fields[f++].substr(11));
  }
  REQUIRE(fields[f].rfind("F0= ", 0) == 0);
  n.f0 = std::stod(fields[f++].substr(4));
  n.score = std::stod(fields[f]);
  return n;
}

}  // namespace

TEST_CASE("n-best with alignment and word scores in marian-decoder's field order", "[cli][word-scores]") {
  const std::string input = "A man in an orange hat starring at something.\nTwo dogs play in the snow.\n";
  const auto out = test::run(translate() + " --n-best 3 --alignment --word-scores", input);
  REQUIRE(out.exit_code == 0);
  const auto lines = lines_of(out.out);
  REQUIRE(lines.size() == 6);
  const auto plain = lines_of(test::run(translate() + " --n-best 3", input).out);
  REQUIRE(plain.size() == 6);
  for (size_t k = 0; k < lines.size(); ++k) {
    INFO(lines[k]);
    const NBestLine n = parse_nbest(lines[k], true, true);
    const NBestLine p = parse_nbest(plain[k], false, false);
    CHECK(n.line == static_cast<int>(k / 3));
    CHECK(n.text == p.text);
    CHECK(n.f0 == p.f0);
    CHECK(n.score == p.score);
    CHECK(words_of(n.alignment).size() == words_of(n.text).size());  // one pair per output word
    REQUIRE(n.word_scores.size() == words_of(n.text).size());
    // The words' scores sum to the raw path score (F0), 5 decimals each.
    CHECK(std::accumulate(n.word_scores.begin(), n.word_scores.end(), 0.0) ==
          Approx(n.f0).margin(1e-5 * n.word_scores.size() + 1e-6));
    // F0 is the raw score, the last field the normalised one: the default length penalty (1.5) makes
    // them differ, raw <= normalised (both negative, length >= 1).
    CHECK(n.f0 < n.score);
  }
}

TEST_CASE("word scores in plain output and JSON lines", "[cli][word-scores]") {
  const std::string input = "Two dogs play in the snow. A woman sings.\n\nA girl runs.\n";
  const auto text = lines_of(test::run(translate(), input).out);
  const auto scored = test::run(translate() + " --word-scores", input);
  REQUIRE(scored.exit_code == 0);
  const auto with_scores = lines_of(scored.out);
  const auto jsonl = lines_of(test::run(translate() + " --word-scores --output-format jsonl", input).out);
  REQUIRE(text.size() == 3);
  REQUIRE(with_scores.size() == 3);
  REQUIRE(jsonl.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    INFO(with_scores[i]);
    const std::vector<std::string> fields = split_on(with_scores[i], " ||| WordScores=");
    REQUIRE(fields.size() == 2);
    CHECK(fields[0] == text[i]);
    const std::vector<double> words = numbers_of(fields[1]);
    CHECK(words.size() == words_of(text[i]).size());  // a line of two sentences: both sentences' words
    const auto j = nlohmann::json::parse(jsonl[i]);
    const std::vector<double> json_words = j.at("word_scores").get<std::vector<double>>();
    REQUIRE(json_words.size() == words.size());
    for (size_t w = 0; w < words.size(); ++w) CHECK(json_words[w] == Approx(words[w]).margin(1e-5));
    for (double w : words) CHECK(w <= 0.0);
  }
  CHECK(nlohmann::json::parse(lines_of(test::run(translate() + " --output-format jsonl", input).out)[0])
            .at("word_scores")
            .is_null());
}

TEST_CASE("a translation cut by the length limit is flagged and warned about", "[cli][length-limit]") {
  const std::string input = "A man in an orange hat starring at something.\n";
  const auto cut = test::run(translate() + " --max-length 4 --output-format jsonl", input);
  REQUIRE(cut.exit_code == 0);
  const auto j = nlohmann::json::parse(lines_of(cut.out).at(0));
  CHECK(j.at("flags").at(0) == "length-limit");
  CHECK_THAT(cut.err, Catch::Contains("stdin:1: the translation stopped at the length limit"));

  const auto file_input = test::TempDir();
  test::write_file(file_input.file("in.txt"), "A dog.\n" + input);
  const auto plain = test::run(translate() + " --max-length 4 -i '" + file_input.file("in.txt") + "'");
  REQUIRE(plain.exit_code == 0);
  CHECK_THAT(plain.err, Catch::Contains("in.txt:2: the translation stopped at the length limit"));

  const auto whole = test::run(translate() + " --output-format jsonl", input);
  CHECK(nlohmann::json::parse(lines_of(whole.out).at(0)).at("flags").empty());
  CHECK(whole.err.find("length limit") == std::string::npos);
}

TEST_CASE("loop guard flags change a looping translation and are checked", "[cli][guards]") {
  // Out of domain for the bundled model, which loops on it unguarded ("New York New York ...").
  const std::string input = "Why don't we get started right away?\n";
  const auto off = test::run(nmt() + " -b 5 --no-repeat-ngram-size 0 --repetition-penalty 1", input);
  REQUIRE(off.exit_code == 0);
  const auto guarded = test::run(nmt() + " -b 5 --no-repeat-ngram-size 3", input);
  REQUIRE(guarded.exit_code == 0);
  CHECK(guarded.out != off.out);
  const auto penalised = test::run(nmt() + " -b 5 --repetition-penalty 1.5", input);
  REQUIRE(penalised.exit_code == 0);
  CHECK(penalised.out != off.out);
  // Word 4-grams repeat at most twice once the guard is on.
  const std::vector<std::string> words = words_of(guarded.out);
  for (size_t i = 0; i + 4 <= words.size(); ++i) {
    int count = 0;
    for (size_t k = 0; k + 4 <= words.size(); ++k)
      count += std::equal(words.begin() + i, words.begin() + i + 4, words.begin() + k) ? 1 : 0;
    CHECK(count <= 2);
  }
  for (const std::string bad :
       {"--repetition-penalty 0", "--repetition-penalty -1", "--no-repeat-ngram-size -1"}) {
    INFO(bad);
    CHECK(test::run(translate() + " " + bad, input).exit_code == 64);
  }
}
