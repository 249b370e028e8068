// Tests of the glossary (pipeline/glossary.h): the file format and its errors, --term, and where terms
// match a source sentence.
#include <catch2/catch.hpp>
#include <string>

#include "core/error.h"
#include "pipeline/glossary.h"
#include "pipeline/translate_options.h"

namespace {

std::string matched(const pipeline::Glossary& g, const std::string& text) {
  std::string out;
  for (const pipeline::TermMatch& m : g.match(text))
    out += (out.empty() ? "" : ",") + text.substr(m.begin, m.end - m.begin) + ">" +
           g.entries()[m.entry].targets[0];
  return out;
}

}  // namespace

TEST_CASE("glossary: file format, forms, flags and comments", "[glossary]") {
  const pipeline::Glossary g = pipeline::Glossary::parse(
      "\xEF\xBB\xBF# terms\n"
      "contract\tVertrag|Vertrags|Verträge\n"
      "\n"
      "privacy policy\tDatenschutzerklärung\r\n"
      "  # indented comment\n"
      "Apple\tApple\tcase\n",
      "terms.tsv");
  REQUIRE(g.entries().size() == 3);
  CHECK(g.entries()[0].targets == std::vector<std::string>{"Vertrag", "Vertrags", "Verträge"});
  CHECK(g.entries()[1].source == "privacy policy");
  CHECK(g.entries()[1].targets == std::vector<std::string>{"Datenschutzerklärung"});
  CHECK(g.entries()[2].case_sensitive);
  CHECK_FALSE(g.entries()[0].case_sensitive);
}

TEST_CASE("glossary: errors name the file and line", "[glossary]") {
  CHECK_THROWS_WITH(pipeline::Glossary::parse("a\tb\nno tab here\n", "g.tsv"),
                    "g.tsv:2: expected SOURCE<TAB>TARGET, found no tab");
  CHECK_THROWS_WITH(pipeline::Glossary::parse("a\tb|\n", "g.tsv"), "g.tsv:1: an empty target form");
  CHECK_THROWS_WITH(pipeline::Glossary::parse("\n\n...\tb\n", "g.tsv"),
                    "g.tsv:3: the source term has no word (letters or digits)");
  CHECK_THROWS_WITH(pipeline::Glossary::parse("a\tb\tbold\n", "g.tsv"),
                    "g.tsv:1: unknown flag 'bold' (the third column takes 'case')");
  CHECK_THROWS_AS(pipeline::Glossary::read("/nonexistent/g.tsv"), core::UsageError);
  pipeline::Glossary g;
  CHECK_THROWS_WITH(g.add_term("novalue", "--term"), "--term 'novalue': expected SOURCE=TARGET");
}

TEST_CASE("glossary: whole words, case, longest match", "[glossary]") {
  pipeline::Glossary g;
  g.add_term("policy=Richtlinie", "--term");
  g.add_term("privacy policy=Datenschutzerklärung", "--term");
  g.add_term("cat=Katze", "--term");
  g.add_term("privacy=Privatsphäre", "--term");  // shorter, added after the longer one
  g.add({"Apple", {"Apple"}, true}, "test");
  CHECK(matched(g, "Read the Privacy Policy and the policy.") ==
        "Privacy Policy>Datenschutzerklärung,policy>Richtlinie");
  CHECK(matched(g, "The category is concatenated.") == "");  // not inside words
  CHECK(matched(g, "A cat, the CAT.") == "cat>Katze,CAT>Katze");
  CHECK(matched(g, "An apple from Apple.") == "Apple>Apple");
  CHECK(matched(g, "Ä cat-like Straße") == "cat>Katze");
}

TEST_CASE("glossary: --term over the file, one canonical text", "[glossary]") {
  pipeline::TranslateOptions o;
  CHECK(pipeline::load_glossary(o) == nullptr);
  o.terms = "dog=Hund\ndog=Köter";
  const auto g = pipeline::load_glossary(o);
  REQUIRE(g != nullptr);
  REQUIRE(g->entries().size() == 1);
  CHECK(g->entries()[0].targets[0] == "Köter");
  CHECK(g->canonical() == "dog\tKöter\n");
}
