// The sentence splitter: its rules on single cases, and its accuracy on the hand-checked gold set
// (tests/fixtures/sentences) against the alternatives it was chosen over.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>

#include "tokenizer/sentence_splitter.h"

namespace {

using tokenizer::SentenceSplitter;
using tokenizer::SplitRules;

std::vector<std::string> sentences(const SentenceSplitter& s, const std::string& text) {
  std::vector<std::string> out;
  for (const tokenizer::Span& span : s.split(text))
    out.push_back(text.substr(span.begin, span.end - span.begin));
  return out;
}

struct Score {
  int gold = 0, found = 0, correct = 0;   // boundaries
  int candidates = 0, decided_right = 0;  // every ". ! ? …" (and closers) before a space
  double accuracy() const { return candidates ? static_cast<double>(decided_right) / candidates : 0; }
};

bool ends_like_sentence(const std::string& p, size_t space) {
  size_t i = space;
  while (i > 0 && std::string("\"')]»“”’").find(p[i - 1]) != std::string::npos) --i;
  if (i >= 3 && p.compare(i - 3, 3, "\xe2\x80\xa6") == 0) return true;  // …
  if (i >= 2 && (p.compare(i - 2, 2, "\xc2\xbb") == 0 || p.compare(i - 2, 2, "\xe2\x80") == 0)) return true;
  if (i >= 3 && (p.compare(i - 3, 3, "\xe2\x80\x9c") == 0 || p.compare(i - 3, 3, "\xe2\x80\x9d") == 0)) {
    return ends_like_sentence(p, i - 2);
  }
  return i > 0 && std::string(".!?").find(p[i - 1]) != std::string::npos;
}

Score measure(const std::string& language, const std::string& file, SplitRules rules) {
  const SentenceSplitter splitter(language, rules);
  std::ifstream in(std::string(NMT_TEST_FIXTURES) + "/sentences/" + file);
  REQUIRE(in);
  Score score;
  for (std::string line; std::getline(in, line);) {
    std::string paragraph;
    std::set<size_t> gold;  // offsets of the space after each sentence but the last
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      paragraph += line.substr(start, tab - start);
      gold.insert(paragraph.size());
      paragraph += ' ';
    }
    paragraph += line.substr(start);
    std::set<size_t> found;
    const auto spans = splitter.split(paragraph);
    for (size_t k = 0; k + 1 < spans.size(); ++k) found.insert(spans[k].end);
    score.gold += static_cast<int>(gold.size());
    score.found += static_cast<int>(found.size());
    for (size_t b : found) score.correct += gold.count(b) ? 1 : 0;
    for (size_t i = 0; i < paragraph.size(); ++i) {
      if (paragraph[i] != ' ' || (!ends_like_sentence(paragraph, i) && !gold.count(i) && !found.count(i)))
        continue;
      ++score.candidates;
      score.decided_right += gold.count(i) == found.count(i) ? 1 : 0;
    }
  }
  return score;
}

}  // namespace

TEST_CASE("sentences end at . ! ? … but not after abbreviations, initials or inside numbers", "[split]") {
  const SentenceSplitter en("en");
  REQUIRE(sentences(en, "Mr. Smith walks his dog. Dr. Brown reads a newspaper on a bench.") ==
          std::vector<std::string>{"Mr. Smith walks his dog.", "Dr. Brown reads a newspaper on a bench."});
  REQUIRE(sentences(en, "It costs 2.5 dollars. See www.example.com. Mail a.b@c.de now.") ==
          std::vector<std::string>{"It costs 2.5 dollars.", "See www.example.com.", "Mail a.b@c.de now."});
  // A number sign or currency before the number starts a sentence too (SB8 would read on to "for").
  REQUIRE(sentences(en, "They play at church. # 8 for Iowa runs. $5 buys a drink. See p. 5 for more.") ==
          std::vector<std::string>{"They play at church.", "# 8 for Iowa runs.", "$5 buys a drink.",
                                   "See p. 5 for more."});
  REQUIRE(
      sentences(en,
                "J. R. R. Tolkien wrote it, e.g. in the U.S. Army. Wait… What? He said \"Go!\" and left.") ==
      std::vector<std::string>{"J. R. R. Tolkien wrote it, e.g. in the U.S. Army.", "Wait…", "What?",
                               "He said \"Go!\" and left."});
  const SentenceSplitter de("de");
  REQUIRE(sentences(de, "Das ist z.B. gut. Er kam am 3. Oktober. Sie sagte: „Komm!“ Dann ging sie.") ==
          std::vector<std::string>{"Das ist z.B. gut.", "Er kam am 3. Oktober.", "Sie sagte: „Komm!“",
                                   "Dann ging sie."});
  const SentenceSplitter fr("fr");
  REQUIRE(sentences(fr, "M. Dupont dit « Non ! » puis il part. « Oui ! » Il rit.") ==
          std::vector<std::string>{"M. Dupont dit « Non ! » puis il part.", "« Oui ! »", "Il rit."});
  const SentenceSplitter neutral("");
  REQUIRE(sentences(neutral, "你好。再见！好的？") == std::vector<std::string>{"你好。", "再见！", "好的？"});
}

TEST_CASE("sentence spans leave out the whitespace around them", "[split]") {
  const SentenceSplitter en("en");
  const std::string text = "\t  One dog.\u00a0 Two cats.  ";
  const auto spans = en.split(text);
  REQUIRE(spans.size() == 2);
  REQUIRE(text.substr(spans[0].begin, spans[0].end - spans[0].begin) == "One dog.");
  REQUIRE(text.substr(spans[1].begin, spans[1].end - spans[1].begin) == "Two cats.");
  REQUIRE(en.split("   ").empty());
  REQUIRE(en.split("").empty());
}

// LANG.txt is the set the nonbreaking-prefix rules were tuned on; LANG-unseen.txt was written after the
// rules and left as it was (its errors are the rules' real ones: "S. 40. Lies" reads as an ordinal).
TEST_CASE("the splitter's accuracy on the gold set, against ICU alone and ICU's suppressions", "[split]") {
  for (const std::string language : {"en", "de", "fr"}) {
    for (const std::string& file : std::vector<std::string>{language + ".txt", language + "-unseen.txt"}) {
      const Score chosen = measure(language, file, SplitRules::kIcuAndPrefixes);
      const Score plain = measure(language, file, SplitRules::kIcu);
      const Score suppressed = measure(language, file, SplitRules::kIcuSuppressions);
      for (const auto& [name, s] : {std::pair<const char*, Score>{"icu+prefixes", chosen},
                                    {"icu", plain},
                                    {"icu ss=standard", suppressed}}) {
        std::printf(
            "split accuracy %-14s %-16s %3d/%3d decisions (%5.1f%%), boundaries %d gold, %d found, %d "
            "right\n",
            file.c_str(), name, s.decided_right, s.candidates, 100 * s.accuracy(), s.gold, s.found,
            s.correct);
      }
      CHECK(chosen.accuracy() > plain.accuracy());
      CHECK(chosen.accuracy() > suppressed.accuracy());
      CHECK(chosen.accuracy() >= 0.95);
    }
  }
}
