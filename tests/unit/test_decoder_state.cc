// The self-attention cache's sharing: rows descended from one hypothesis point at the same entries, and
// entries no row points at any more are reclaimed and handed out again.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "models/decoder_state.h"
#include "models/transformer.h"
#include "test_support.h"

namespace {

struct Fixture {
  Fixture() : description(test::small_description()) { test::write_random_model(dir.path(), description, 3); }
  test::TempDir dir;
  models::ModelDescription description;
};

// Feeds one step of token 5 to every row.
void step(models::DecoderState& state, int rows, int position, int vocab) {
  std::vector<float> logits(static_cast<size_t>(rows) * vocab);
  state.step(std::vector<int32_t>(rows, 5), std::vector<int>(rows, 0), position);
  state.logits(0, rows, logits.data());
}

}  // namespace

TEST_CASE("beams that share a prefix share its cache entries, and dropped ones are reused",
          "[decoder_state]") {
  Fixture f;
  models::Transformer model(f.dir.path());
  const int vocab = f.description.config.tgt_vocab_size;
  const auto encoded = model.encode({{7, 8, 9, f.description.tokens.eos}});
  models::DecoderState state(model, encoded, 4, 8);
  state.start(1);
  step(state, 1, 0, vocab);
  REQUIRE(state.live_entries() == 1);

  // One hypothesis becomes four beams: they share position 0's entry, nothing is copied.
  state.select_rows({0, 0, 0, 0});
  for (int r = 1; r < 4; ++r) CHECK(state.entry(r, 0) == state.entry(0, 0));
  REQUIRE(state.live_entries() == 1);
  step(state, 4, 1, vocab);
  std::set<int32_t> position1;
  for (int r = 0; r < 4; ++r) position1.insert(state.entry(r, 1));
  REQUIRE(position1.size() == 4);  // each beam wrote its own new position
  REQUIRE(state.live_entries() == 5);

  // Beams 1 and 3 die; rows 0-1 continue beam 0, rows 2-3 beam 2. Their position 1 entries are shared,
  // and beams 1 and 3's are reclaimed.
  const int32_t kept0 = state.entry(0, 1), kept2 = state.entry(2, 1);
  const int32_t dropped1 = state.entry(1, 1), dropped3 = state.entry(3, 1);
  state.select_rows({0, 0, 2, 2});
  CHECK(state.entry(0, 1) == kept0);
  CHECK(state.entry(1, 1) == kept0);
  CHECK(state.entry(2, 1) == kept2);
  CHECK(state.entry(3, 1) == kept2);
  for (int r = 0; r < 4; ++r) CHECK(state.entry(r, 0) == state.entry(0, 0));
  REQUIRE(state.live_entries() == 3);

  // The next step's new entries include the two reclaimed ones: memory is reused, not grown.
  step(state, 4, 2, vocab);
  std::set<int32_t> position2;
  for (int r = 0; r < 4; ++r) position2.insert(state.entry(r, 2));
  REQUIRE(position2.size() == 4);
  CHECK(position2.count(dropped1) == 1);
  CHECK(position2.count(dropped3) == 1);
  REQUIRE(state.live_entries() == 7);

  // Fewer rows: the dropped rows' whole histories go back, except what the survivor shares.
  state.select_rows({1});
  REQUIRE(state.live_entries() == 3);  // positions 0, 1 (beam 0's) and 2 (row 1's)
  CHECK(state.entry(0, 0) != state.entry(0, 1));
}

TEST_CASE("a new batch starts with every cache entry free", "[decoder_state]") {
  Fixture f;
  models::Transformer model(f.dir.path());
  const int vocab = f.description.config.tgt_vocab_size;
  const auto encoded = model.encode({{7, f.description.tokens.eos}, {9, 10, f.description.tokens.eos}});
  models::DecoderState state(model, encoded, 2, 4);
  state.start(2);
  step(state, 2, 0, vocab);
  step(state, 2, 1, vocab);
  REQUIRE(state.live_entries() == 4);
  state.start(2);
  REQUIRE(state.live_entries() == 0);
  step(state, 2, 0, vocab);
  REQUIRE(state.live_entries() == 2);
}

TEST_CASE("an int8 output projection is searched in groups of a quarter of f32's rows",
          "[decoder_state][int8]") {
  const auto desc = test::small_description();
  for (const models::DType dtype : {models::DType::kF32, models::DType::kI8}) {
    test::TempDir dir;
    test::write_random_model(dir.path(), desc, 5, dtype);
    const models::Transformer model(dir.path());
    const models::EncodedBatch encoded = model.encode({{5, 9, desc.tokens.eos}});
    models::DecoderState state(model, encoded, 1, 4);
    const int expected = core::DecoderStep::kLogitRows / (dtype == models::DType::kI8 ? 4 : 1);
    CHECK(state.logit_rows() == expected);
  }
}
