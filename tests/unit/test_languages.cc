// The languages a checkpoint records (source_lang/target_lang), what the converters infer from OPUS-MT
// names, and the flags that name languages.
#include <catch2/catch.hpp>
#include <limits>

#include "core/error.h"
#include "front/translate_flags.h"
#include "models/model_config.h"
#include "models/model_error.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

nlohmann::json bundled_json() {
  return nlohmann::json::parse(test::read_file(std::string(NMT_TEST_DATA) + "/multi30k-en-de/model.json"));
}

}  // namespace

TEST_CASE("OPUS-MT names give the model's languages", "[languages]") {
  using models::languages_from_model_name;
  using Pair = std::pair<std::string, std::string>;
  REQUIRE(languages_from_model_name("Helsinki-NLP/opus-mt-en-de") == Pair{"en", "de"});
  REQUIRE(languages_from_model_name("/models/opus-mt-fr-en/") == Pair{"fr", "en"});
  REQUIRE(languages_from_model_name("/tmp/en-de") == Pair{"en", "de"});
  REQUIRE(languages_from_model_name("opus-mt-en-ROMANCE") == Pair{"en", ""});
  REQUIRE(languages_from_model_name("/tmp/model") == Pair{"", ""});
  REQUIRE(languages_from_model_name("opus-mt-tc-big-en-de") == Pair{"", ""});
}

TEST_CASE("model.json's source_lang and target_lang are optional language tags", "[languages]") {
  nlohmann::json j = bundled_json();
  models::ModelDescription d = models::parse_description(j, "model.json");
  REQUIRE(d.source_lang == "en");
  REQUIRE(d.target_lang == "de");
  REQUIRE(models::description_to_json(d)["source_lang"] == "en");
  j.erase("source_lang");
  j["target_lang"] = nullptr;
  d = models::parse_description(j, "model.json");
  REQUIRE(d.source_lang.empty());
  REQUIRE(d.target_lang.empty());
  REQUIRE_FALSE(models::description_to_json(d).contains("source_lang"));
  j["source_lang"] = "english!";
  REQUIRE_THROWS_WITH(models::parse_description(j, "model.json"), Catch::Contains("source_lang"));
  REQUIRE(models::is_language_tag("pt-BR"));
  REQUIRE(models::is_language_tag("zh_Hant"));
  REQUIRE_FALSE(models::is_language_tag("e"));
  REQUIRE_FALSE(models::is_language_tag("en-"));
}

TEST_CASE("language flags are checked against the model", "[languages]") {
  const pipeline::Translator translator(std::string(NMT_TEST_DATA) + "/multi30k-en-de");
  front::TranslateFlags f;
  REQUIRE(front::resolve_translate_flags(f, translator).source_lang == "en");
  REQUIRE(front::resolve_translate_flags(f, translator).max_sentence_tokens ==
          pipeline::kDefaultMaxSentenceTokens);
  f.set("source_lang", std::string("fr"));
  REQUIRE(front::resolve_translate_flags(f, translator).source_lang == "fr");
  f.set("source_lang", std::string("not a tag"));
  REQUIRE_THROWS_WITH(front::resolve_translate_flags(f, translator),
                      Catch::StartsWith("--source-lang 'not a tag'"));
  f = front::TranslateFlags();
  f.set("target_lang", std::string("fr"));
  REQUIRE_THROWS_WITH(front::resolve_translate_flags(f, translator), Catch::Contains("'de' only"));
  f.set("target_lang", std::string("de"));
  REQUIRE(front::resolve_translate_flags(f, translator).target_lang.empty());  // its only target: no tag
  f = front::TranslateFlags();
  f.set("max_sentence_tokens", int64_t{4});
  REQUIRE_THROWS_WITH(front::resolve_translate_flags(f, translator),
                      Catch::StartsWith("--max-sentence-tokens must be a whole number in 8..1048576"));
  f.set("max_sentence_tokens", int64_t{5000});
  REQUIRE_THROWS_WITH(front::resolve_translate_flags(f, translator),
                      Catch::StartsWith("--max-sentence-tokens must be at most 1024"));
}

TEST_CASE("the library checks options by their own names, never a flag's", "[languages][translator]") {
  const pipeline::Translator translator(std::string(NMT_TEST_DATA) + "/multi30k-en-de");
  pipeline::TranslateOptions o = translator.defaults();
  CHECK(o.beam_size == translator.model().description().decoding.beam_size);
  CHECK(o.source_lang == "en");
  CHECK_NOTHROW(translator.check(o));
  o.target_lang = "de";  // the library takes tags only; the CLI turns the model's own target into none
  CHECK_THROWS_WITH(translator.check(o),
                    Catch::StartsWith("target_lang 'de'") && Catch::Contains("'de' only"));
  o.target_lang.clear();
  o.n_best = o.beam_size + 1;
  CHECK_THROWS_WITH(translator.check(o), Catch::StartsWith("n_best must be in 1.."));
  o.n_best = 1;
  o.length_penalty = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(translator.check(o), pipeline::OptionError);
  CHECK_THROWS_AS(translator.translate({"A dog."}, o), pipeline::OptionError);
  front::TranslateFlags f;
  f.set("length_penalty", double{o.length_penalty});
  CHECK_THROWS_WITH(front::resolve_translate_flags(f, translator),
                    Catch::StartsWith("--length-penalty must be"));
}

TEST_CASE("nmt info shows the languages", "[languages][cli]") {
  const auto r = test::run(test::nmt_binary() + " info");
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.out, Catch::Contains("languages: en -> de"));
}

TEST_CASE("a multilingual model takes only its own target tags", "[languages][cli]") {
  test::TempDir dir;
  const std::string model = dir.file("model");
  REQUIRE(test::run("cp -r '" + test::fixtures_dir() + "/opus/model' '" + model + "'").exit_code == 0);
  // Two pieces of the vocabulary become language tags (ids unchanged, so the model still loads).
  nlohmann::json vocab = nlohmann::json::parse(test::read_file(model + "/vocab.json"));
  const int32_t z = vocab["Z"], y = vocab["Y"];
  vocab.erase("Z");
  vocab.erase("Y");
  vocab[">>fr<<"] = z;
  vocab[">>es<<"] = y;
  test::write_file(model + "/vocab.json", vocab.dump());
  const pipeline::Translator translator(model);
  REQUIRE(translator.language_tags() == std::vector<std::string>{"es", "fr"});
  const std::string nmt = test::nmt_binary() + " translate --threads 1 -m '" + model + "'";
  const auto wrong = test::run(nmt + " --target-lang de", "A dog.\n");
  REQUIRE(wrong.exit_code == 64);
  REQUIRE_THAT(wrong.err, Catch::Contains("not one of this model's target languages: es, fr"));
  REQUIRE(test::run(nmt + " --target-lang fr", "A dog.\n").exit_code == 0);
}
