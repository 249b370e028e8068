// Choosing a model by language: codes in any spelling, installed before bundled, a pivot when no model
// translates a pair itself, the refusal's words; and how a pivot's two translations compose.
#include <catch2/catch.hpp>
#include <string>

#include "core/error.h"
#include "front/language_codes.h"
#include "front/model_catalog.h"
#include "pipeline/pivot_translator.h"

using Catch::Matchers::Contains;

namespace {

models::StoredModel model(const std::string& name, const std::string& source, const std::string& target,
                          bool bundled = false) {
  return {name, "/models/" + name, source, target, bundled};
}

}  // namespace

TEST_CASE("language codes: BCP-47, ISO 639-3 and 639-2/B, any case", "[route]") {
  CHECK(front::normalize_language("de") == "de");
  CHECK(front::normalize_language("DE") == "de");
  CHECK(front::normalize_language("deu") == "de");
  CHECK(front::normalize_language("ger") == "de");
  CHECK(front::normalize_language("de-DE") == "de");
  CHECK(front::normalize_language("pt_BR") == "pt");
  CHECK(front::normalize_language("xyz") == "xyz");
  CHECK(front::same_language_code("fra", "fr-CA"));
  CHECK_FALSE(front::same_language_code("fr", "de"));
  CHECK(front::language_name("deu") == "German");
  CHECK(front::language_name("xx") == "xx");
  CHECK(front::language_name("") == "");
}

TEST_CASE("the catalog: installed before bundled, direct before pivot", "[route]") {
  const front::ModelCatalog catalog({model("general", "en", "de", true), model("opus-en-de", "en", "de"),
                                     model("opus-fr-en", "fr", "en"), model("opus-en-es", "eng", "spa")});
  REQUIRE(catalog.direct("en", "de") != nullptr);
  CHECK(catalog.direct("en", "de")->name == "opus-en-de");
  CHECK(catalog.direct("eng", "es-ES")->name == "opus-en-es");
  CHECK(catalog.preferred(catalog.models().front()));
  CHECK_FALSE(catalog.preferred(catalog.models().back()));  // the bundled en-de

  const auto pivot = catalog.route("fr", "de", "en");
  REQUIRE(pivot);
  CHECK(pivot->through_pivot());
  CHECK(pivot->describe() == "fr-en (opus-fr-en) then en-de (opus-en-de)");
  CHECK_FALSE(catalog.route("fr", "de", ""));
  CHECK_FALSE(catalog.route("de", "fr", "en"));
  CHECK_FALSE(catalog.route("en", "en", "en"));

  using Pairs = std::vector<std::pair<std::string, std::string>>;
  CHECK(catalog.reachable("en") ==
        Pairs{{"en", "de"}, {"en", "es"}, {"fr", "de"}, {"fr", "en"}, {"fr", "es"}});
  CHECK(catalog.reachable("") == Pairs{{"en", "de"}, {"en", "es"}, {"fr", "en"}});

  try {
    catalog.require_route("es", "fr", "en");
    FAIL("no route from es to fr");
  } catch (const core::UsageError& e) {
    CHECK_THAT(e.what(), Contains("no model translates es to fr (directly or through en)"));
    CHECK_THAT(e.what(), Contains("available pairs: en-de, en-es, fr-de, fr-en, fr-es"));
    CHECK_THAT(e.what(), Contains("install one with: nmt models install Helsinki-NLP/opus-mt-es-fr"));
  }
}

TEST_CASE("a pivot's translation: the second leg's, confidences multiplied, alignments composed", "[route]") {
  pipeline::Translation first, second;
  first.texts = {"a b c"};
  first.confidences = {0.5f};
  first.flags = {{"numbers"}};
  first.detected_language = "fr";
  first.alignments = {{{1, 0}, {0, 1}, {2, 2}}};  // pivot word -> source word: 0->1, 1->0, 2->2
  second.texts = {"x y", "x z"};
  second.scores = {-0.1f, -0.2f};
  second.confidences = {0.8f, 0.4f};
  second.flags = {{"numbers", "loop"}, {}};
  second.alignments = {{{2, 0}, {0, 1}}, {{1, 0}, {5, 1}}};
  const pipeline::Translation t = pipeline::compose_pivot(first, second);
  CHECK(t.texts == second.texts);
  CHECK(t.scores == second.scores);
  CHECK(t.detected_language == "fr");
  CHECK(t.confidences == std::vector<float>{0.4f, 0.2f});
  CHECK(t.flags == std::vector<std::vector<std::string>>{{"numbers", "loop"}, {"numbers"}});
  REQUIRE(t.alignments.size() == 2);
  CHECK(pipeline::format_alignment(t.alignments[0]) == "2-0 1-1");
  CHECK(pipeline::format_alignment(t.alignments[1]) == "0-0");  // pivot word 5 does not exist
}
