// Lines of several sentences: each sentence is translated as if it stood alone, the line comes back as
// one line with its whitespace, nothing is dropped. Runs the bundled en->de model.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "pipeline/translator.h"
#include "test_support.h"

namespace {

const pipeline::Translator& bundled() {
  static const pipeline::Translator translator(std::string(NMT_TEST_DATA) + "/multi30k-en-de");
  return translator;
}

pipeline::TranslateOptions greedy() {
  pipeline::TranslateOptions o = bundled().defaults();
  o.beam_size = 1;
  return o;
}

// The gold set's English paragraphs (tests/fixtures/sentences/en.txt): sentences written for these tests,
// so held out from the model's training data.
std::vector<std::vector<std::string>> paragraphs() {
  std::ifstream in(std::string(NMT_TEST_FIXTURES) + "/sentences/en.txt");
  std::vector<std::vector<std::string>> out;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> sentences;
    std::stringstream ss(line);
    for (std::string s; std::getline(ss, s, '\t');) sentences.push_back(s);
    out.push_back(sentences);
  }
  return out;
}

size_t words(const std::string& s) {
  std::stringstream ss(s);
  size_t n = 0;
  for (std::string w; ss >> w;) ++n;
  return n;
}

}  // namespace

TEST_CASE("a paragraph translates exactly as its sentences one by one, joined", "[paragraph]") {
  const auto groups = paragraphs();
  REQUIRE(groups.size() >= 30);
  std::vector<std::string> alone, joined;
  for (const auto& g : groups) {
    std::string line;
    for (const auto& s : g) {
      alone.push_back(s);
      line += (line.empty() ? "" : " ") + s;
    }
    joined.push_back(line);
  }
  pipeline::TranslateOptions one_per_line = greedy();
  one_per_line.split_sentences = false;
  const auto by_sentence = bundled().translate(alone, one_per_line);
  const auto by_paragraph = bundled().translate(joined, greedy());
  size_t next = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string expected;
    for (size_t k = 0; k < groups[i].size(); ++k) expected += (k ? " " : "") + by_sentence[next++].texts[0];
    INFO(joined[i]);
    CHECK(by_paragraph[i].texts[0] == expected);
  }
}

TEST_CASE("with --no-split a line is translated as one sentence", "[paragraph]") {
  const std::string line = "Two dogs play in the snow. A man is cooking dinner. The children are laughing.";
  pipeline::TranslateOptions whole = greedy();
  whole.split_sentences = false;
  const auto split = bundled().translate({line}, greedy());
  const auto unsplit = bundled().translate({line}, whole);
  REQUIRE(split[0].texts[0] != unsplit[0].texts[0]);
  REQUIRE(words(split[0].texts[0]) >= 12);  // three sentences' worth, none dropped
}

TEST_CASE("a 400-sentence line is translated whole, on one line", "[paragraph]") {
  const auto groups = paragraphs();
  std::string line;
  int n = 0;
  for (int round = 0; n < 400; ++round) {
    for (const auto& g : groups) {
      for (const auto& s : g) {
        if (n++ < 400) line += (line.empty() ? "" : " ") + s;
      }
    }
  }
  std::vector<pipeline::TranslateWarning> warnings;
  const auto out = bundled().translate({line}, greedy(), &warnings);
  REQUIRE(warnings.empty());
  REQUIRE(out[0].texts[0].find('\n') == std::string::npos);
  REQUIRE(words(out[0].texts[0]) >= 2000);
}

TEST_CASE("indentation, trailing spaces and tabs between sentences come back unchanged", "[paragraph]") {
  const auto alone = bundled().translate({"A dog runs.", "A cat sleeps."}, greedy());
  const auto out = bundled().translate({"\t  A dog runs.\tA cat sleeps.  ", "   ", ""}, greedy());
  REQUIRE(out[0].texts[0] == "\t  " + alone[0].texts[0] + "\t" + alone[1].texts[0] + "  ");
  REQUIRE(out[1].texts[0] == "   ");
  REQUIRE(out[2].texts[0] == "");
}

TEST_CASE("an over-long sentence is cut and reported to the caller with its line", "[paragraph]") {
  std::string sentence;
  for (int i = 0; i < 60; ++i) sentence += "a man, ";
  sentence += "and a dog.";
  pipeline::TranslateOptions o = greedy();
  o.max_sentence_tokens = 32;
  std::vector<pipeline::TranslateWarning> warnings;
  const auto out = bundled().translate({"A cat sleeps.", sentence}, o, &warnings);
  REQUIRE(warnings.size() == 1);
  REQUIRE(warnings[0].line == 1);
  REQUIRE_THAT(warnings[0].message, Catch::Contains("over the limit of 32 tokens"));
  REQUIRE(words(out[1].texts[0]) >= 60);
}

TEST_CASE("the CLI: the issue's example, .gz input, --target-lang, Marian n-best", "[paragraph][cli]") {
  const std::string nmt = test::nmt_binary() + " translate --threads 1";
  const auto both = test::run(nmt, "Mr. Smith walks his dog. Dr. Brown reads a newspaper on a bench.\n");
  const auto each =
      test::run(nmt + " --no-split", "Mr. Smith walks his dog.\nDr. Brown reads a newspaper on a bench.\n");
  REQUIRE(both.exit_code == 0);
  std::string first = each.out.substr(0, each.out.find('\n'));
  std::string second = each.out.substr(first.size() + 1);
  REQUIRE(both.out == first + " " + second);

  test::TempDir dir;
  test::write_file(dir.file("in.txt"), "  A dog runs. A cat sleeps.\nTwo men walk.\n");
  REQUIRE(test::run("gzip -k '" + dir.file("in.txt") + "'").exit_code == 0);
  const auto plain = test::run(nmt + " -i '" + dir.file("in.txt") + "'");
  const auto gz = test::run(nmt + " -i '" + dir.file("in.txt.gz") + "'");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(gz.exit_code == 0);
  REQUIRE(gz.out == plain.out);
  test::write_file(dir.file("cut.gz"), test::read_file(dir.file("in.txt.gz")).substr(0, 20));
  const auto cut = test::run(nmt + " -i '" + dir.file("cut.gz") + "'");
  REQUIRE(cut.exit_code == 1);
  REQUIRE_THAT(cut.err, Catch::Contains("cut.gz: truncated gzip data"));

  const auto wrong = test::run(nmt + " --target-lang fr", "A dog.\n");
  REQUIRE(wrong.exit_code == 64);
  REQUIRE_THAT(wrong.err, Catch::Contains("translates into 'de' only"));
  REQUIRE(test::run(nmt + " --target-lang de", "A dog.\n").exit_code == 0);

  const auto nbest = test::run(nmt + " --n-best 2", "A dog runs.\n");
  REQUIRE(nbest.exit_code == 0);
  const std::string line = nbest.out.substr(0, nbest.out.find('\n'));
  const size_t f0 = line.find(" ||| F0= ");
  REQUIRE(line.rfind("0 ||| ", 0) == 0);
  REQUIRE(f0 != std::string::npos);
  const size_t last = line.find(" ||| ", f0 + 1);
  // F0 is the raw path score, the last field the length-normalised one (the model's penalty is 1.5).
  REQUIRE(std::stod(line.substr(f0 + 9, last - f0 - 9)) < std::stod(line.substr(last + 5)));
}
