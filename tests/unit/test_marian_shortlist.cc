// Marian's binary lexical shortlist (models/convert/marian_shortlist.h): the file marian-conv wrote for the
// SSRU student fixture reads with Marian's selection (the most frequent pieces, the source pieces of a
// shared vocabulary, a multiple of 8), nmt's file keeps the rounding, and hostile files are refused with
// the file's name. Parity with marian-decoder over the shortlist is tests/marian_student_check.sh.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/convert/marian_shortlist.h"
#include "models/model_error.h"
#include "test_support.h"

namespace {

const std::string kFixture = test::fixtures_dir() + "/marian-ssru/lex.50.50.ende.s2t.bin";
constexpr int kVocab = 6001;  // the fixture's 6,000 pieces and nmt's pad row

std::string refusal(const std::string& path, int vocab = kVocab) {
  try {
    models::read_marian_shortlist(path, vocab, vocab, true);
  } catch (const models::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Marian's binary shortlist reads with marian-decoder's selection", "[shortlist][marian]") {
  REQUIRE(models::looks_like_marian_shortlist(kFixture));
  REQUIRE(!models::looks_like_marian_shortlist(test::fixtures_dir() + "/marian-ssru/model.npz"));
  const models::Shortlist s = models::read_marian_shortlist(kFixture, kVocab, kVocab, true);
  REQUIRE(s.frequent().size() == 50);
  REQUIRE(s.frequent().back() == 49);
  REQUIRE(s.round_up() == 8);
  const std::vector<int32_t> source = {700, 1500, 2};
  const std::vector<int32_t> kept = s.vocabulary({source}, {});
  CHECK(kept.size() % 8 == 0);
  for (int32_t id : source) CHECK(std::binary_search(kept.begin(), kept.end(), id));  // shared vocabulary
  // Pieces `always` kept (the pad row, a forced prefix) come on top of the rounding.
  CHECK(s.vocabulary({source}, {kVocab - 1}).size() == kept.size() + 1);
  // Without a shared vocabulary the source pieces are not kept for their own sake.
  const models::Shortlist unshared = models::read_marian_shortlist(kFixture, kVocab, kVocab, false);
  CHECK(unshared.vocabulary({source}, {}).size() <= kept.size());
}

TEST_CASE("a shortlist's rounding survives nmt's file and picks the lowest ids after the frequent ones",
          "[shortlist][marian]") {
  const models::Shortlist s(3, 20, 1, {0, 1}, {{5}, {}, {}}, 8);
  REQUIRE(s.vocabulary({{0}}, {}) == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(s.vocabulary({{0}}, {19}) == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 19});
  test::TempDir tmp;
  s.write(tmp.file("shortlist.bin"));
  REQUIRE(test::read_file(tmp.file("shortlist.bin")).substr(0, 8) == "NMTSLST2");
  const models::Shortlist back = models::Shortlist::read(tmp.file("shortlist.bin"), 3, 20);
  REQUIRE(back.round_up() == 8);
  REQUIRE(back.vocabulary({{0}}, {}) == s.vocabulary({{0}}, {}));
  // Without rounding the file stays the first format, as `nmt shortlist` writes it.
  models::Shortlist(3, 20, 1, {0, 1}, {{5}, {}, {}}).write(tmp.file("plain.bin"));
  REQUIRE(test::read_file(tmp.file("plain.bin")).substr(0, 8) == "NMTSLST1");
}

TEST_CASE("hostile Marian shortlists are refused naming the file", "[shortlist][marian]") {
  test::TempDir tmp;
  const std::string good = test::read_file(kFixture);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    test::write_file(tmp.file(name), bytes);
    return tmp.file(name);
  };
  std::string flipped = good;
  flipped[60] ^= 0x10;  // inside the offsets, which the checksum covers
  const struct {
    std::string path, expected;
  } cases[] = {
      {write("truncated", good.substr(0, good.size() - 4)), "does not match its header"},
      {write("flipped", flipped), "checksum mismatch"},
      {write("empty", ""), "no Marian binary shortlist header"},
      {write("text", "a b 0.5\n"), "no Marian binary shortlist header"},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(c.path);
    CHECK_THAT(why, Catch::Contains(c.path) && Catch::Contains(c.expected));
  }
  CHECK_THAT(refusal(kFixture, 5001), Catch::Contains("made for 6000 source pieces, the model has 5000"));
  CHECK_THAT(refusal(tmp.file("absent")), Catch::Contains(tmp.file("absent")));
}
