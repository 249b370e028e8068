// pipeline/recasing.h: which lines count as ALL CAPS, and the casings in and out.
#include <catch2/catch.hpp>

#include "pipeline/recasing.h"

TEST_CASE("a line in capitals is ALL CAPS, an acronym or mixed case is not", "[recasing]") {
  CHECK(pipeline::is_all_caps("A MAN IN AN ORANGE HAT."));
  CHECK(pipeline::is_all_caps("ÜBER 20 KÄSE!"));
  CHECK_FALSE(pipeline::is_all_caps("NASA"));          // one word
  CHECK_FALSE(pipeline::is_all_caps("A B C"));         // no word of two capitals
  CHECK_FALSE(pipeline::is_all_caps("NASA and ESA"));  // lower-case letters
  CHECK_FALSE(pipeline::is_all_caps("12 + 7"));
  CHECK_FALSE(pipeline::is_all_caps(""));
  CHECK_FALSE(pipeline::is_all_caps("\xff ABC DEF"));  // invalid UTF-8 stays as it is
}

TEST_CASE("sentence case: lower case, each sentence's first letter a capital", "[recasing]") {
  CHECK(pipeline::sentence_case("A DOG RUNS. IT BARKS!", "en") == "A dog runs. It barks!");
  CHECK(pipeline::sentence_case("  \"TWO DOGS\" PLAY", "en") == "  \"Two dogs\" play");
  CHECK(pipeline::sentence_case("ÄPFEL UND BIRNEN", "de") == "Äpfel und birnen");
  CHECK(pipeline::sentence_case("3 DOGS", "en") == "3 dogs");
}

TEST_CASE("upper case follows the language's rules", "[recasing]") {
  CHECK(pipeline::upper_case("Ein Hund läuft über die Straße.", "de") == "EIN HUND LÄUFT ÜBER DIE STRASSE.");
  CHECK(pipeline::upper_case("istanbul", "tr") == "İSTANBUL");
}
