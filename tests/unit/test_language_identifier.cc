// pipeline/language_identifier.h: languages told apart, short or letterless text left undecided.
#include <catch2/catch.hpp>

#include "pipeline/language_identifier.h"

TEST_CASE("sentences of a language are identified", "[language]") {
  CHECK(pipeline::identify_language("Ein Mann mit einem orangefarbenen Hut starrt auf etwas.") == "de");
  CHECK(pipeline::identify_language("A man in an orange hat staring at something in the street.") == "en");
  CHECK(pipeline::identify_language("Un homme avec un chapeau orange regardant quelque chose.") == "fr");
}

TEST_CASE("short, letterless or invalid text is not identified", "[language]") {
  CHECK(pipeline::identify_language("").empty());
  CHECK(pipeline::identify_language("Hand in Hand").empty());  // German and English alike
  CHECK(pipeline::identify_language("12.5 + 7 = 19.5 ; 2024-01-01 12:00").empty());
  CHECK(pipeline::identify_language("\xff\xfe Ein Mann mit einem orangefarbenen Hut starrt auf etwas.")
            .empty());
}

TEST_CASE("a detected code matches a tag by its primary subtag", "[language]") {
  CHECK(pipeline::same_language("en", "en"));
  CHECK(pipeline::same_language("zh-Hant", "zh"));
  CHECK(pipeline::same_language("en", "en-US"));
  CHECK(pipeline::same_language("no", "nb"));
  CHECK(pipeline::same_language("hr", "sr"));  // too close to tell
  CHECK_FALSE(pipeline::same_language("de", "en"));
}

TEST_CASE("only languages the identifier knows are checked", "[language]") {
  CHECK(pipeline::can_identify("de"));
  CHECK(pipeline::can_identify("en-US"));
  CHECK_FALSE(pipeline::can_identify(""));
  CHECK_FALSE(pipeline::can_identify("deu"));  // an OPUS-MT target tag: not judged
  CHECK_FALSE(pipeline::can_identify("ROMANCE"));
}
