// Model invariants on random tiny models in every configuration: batching does not change a sentence's
// encoding, decoding with shared and reordered KV caches equals each row decoded alone.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "core/cpu.h"
#include "models/decoder_state.h"
#include "models/positions.h"
#include "models/transformer.h"
#include "teacher_forced.h"
#include "test_support.h"

namespace {

std::vector<models::ModelDescription> variants() {
  std::vector<models::ModelDescription> out;
  auto base = test::small_description();
  out.push_back(base);  // post-norm, relu, interleaved, shared + tied
  auto pre = base;
  pre.config.pre_norm = true;
  pre.config.final_norm = true;
  pre.config.activation = core::Activation::kGelu;
  pre.config.positions = models::Positions::kSinusoidalConcat;
  pre.config.shared_embeddings = false;
  pre.config.tgt_vocab_size = 37;
  pre.config.tied_output = false;
  pre.config.output_bias = true;
  out.push_back(pre);
  auto swish = base;
  swish.config.activation = core::Activation::kSwish;
  swish.config.positions = models::Positions::kSinusoidalMarian;
  swish.config.scale_embedding = false;
  swish.config.encoder_layers = 3;
  swish.config.decoder_layers = 1;
  out.push_back(swish);
  auto marian = base;  // attention as marian-decoder rounds it
  marian.config.positions = models::Positions::kSinusoidalMarian;
  marian.config.attention_rounding = models::AttentionRounding::kMarian;
  out.push_back(marian);
  auto table = base;
  table.config.positions = models::Positions::kTable;
  table.config.tied_output = false;
  table.config.layer_norm_eps = 1e-6f;
  out.push_back(table);
  // d_model not a multiple of the packed panel width: q, k and v stay three products (no stacked one),
  // and heads of 5 floats take attention's generic path.
  auto odd = base;
  odd.config.d_model = 20;
  odd.config.n_heads = 4;
  out.push_back(odd);
  return out;
}

// variants() and one with heads of 32 floats, whose decoder attention takes core/attend_avx512.cc on CPUs
// with AVX-512.
std::vector<models::ModelDescription> variants_with_wide_heads() {
  std::vector<models::ModelDescription> out = variants();
  auto wide_heads = out.front();
  wide_heads.config.d_model = 64;
  wide_heads.config.n_heads = 2;
  out.push_back(wide_heads);
  return out;
}

std::vector<int32_t> random_ids(std::mt19937& rng, int n, int vocab, int32_t eos) {
  std::uniform_int_distribution<int> u(4, vocab - 1);
  std::vector<int32_t> ids;
  for (int i = 0; i < n - 1; ++i) ids.push_back(u(rng));
  ids.push_back(eos);
  return ids;
}

}  // namespace

TEST_CASE("sinusoid tables: Hugging Face Marian self-check values (d=512)", "[transformer]") {
  const auto pe = models::sinusoid_table(models::Positions::kSinusoidalConcat, 2, 512);
  REQUIRE(pe[512 + 0] == Approx(0.84147096f));
  REQUIRE(pe[512 + 1] == Approx(0.8218562f));
  REQUIRE(pe[512 + 2] == Approx(0.8019618f));
  REQUIRE(pe[512 + 256] == Approx(0.5403023f));
  REQUIRE(pe[512 + 257] == Approx(0.569695f));
  REQUIRE(pe[512 + 258] == Approx(0.59737533f));
  for (int i = 0; i < 256; ++i) REQUIRE((pe[i] == 0.0f && pe[256 + i] == 1.0f));
  const auto paper = models::sinusoid_table(models::Positions::kSinusoidalInterleaved, 2, 512);
  REQUIRE(paper[512 + 0] == Approx(0.84147096f));  // sin(1)
  REQUIRE(paper[512 + 1] == Approx(0.5403023f));   // cos(1)
  REQUIRE(paper[512 + 2] == Approx(0.8218562f));
}

TEST_CASE("sinusoid tables hold sin/cos of each angle, to the float", "[transformer]") {
  // Against the formulas written out here: the paper's layouts in double (as the PyTorch reference computes
  // them), Marian's in float as marian-decoder does (node_initializers.cpp): each step rounded to float.
  for (auto layout : {models::Positions::kSinusoidalInterleaved, models::Positions::kSinusoidalConcat,
                      models::Positions::kSinusoidalMarian}) {
    for (int d : {2, 32, 256, 512}) {
      const int n = 1024, half = d / 2;
      CAPTURE(static_cast<int>(layout), d);
      const auto table = models::sinusoid_table(layout, n, d);
      int differ = 0;
      for (int p = 0; p < n; ++p) {
        for (int k = 0; k < half; ++k) {
          float want_s, want_c;
          if (layout == models::Positions::kSinusoidalMarian) {
            const float increment =
                half > 1 ? std::log(10000.0f) / (static_cast<float>(d) / 2.0f - 1.0f) : 0.0f;
            const float angle = static_cast<float>(p) * std::exp(static_cast<float>(k) * -increment);
            want_s = std::sin(angle);
            want_c = std::cos(angle);
          } else {
            const double angle = p / std::pow(10000.0, 2.0 * k / d);
            want_s = static_cast<float>(std::sin(angle));
            want_c = static_cast<float>(std::cos(angle));
          }
          const bool interleaved = layout == models::Positions::kSinusoidalInterleaved;
          const float s = table[static_cast<size_t>(p) * d + (interleaved ? 2 * k : k)];
          const float c = table[static_cast<size_t>(p) * d + (interleaved ? 2 * k + 1 : half + k)];
          differ += std::memcmp(&s, &want_s, sizeof s) != 0 || std::memcmp(&c, &want_c, sizeof c) != 0;
        }
      }
      CHECK(differ == 0);
    }
  }
  // Marian's float angles are not the double ones rounded: the tables differ in last bits.
  const auto marian = models::sinusoid_table(models::Positions::kSinusoidalMarian, 64, 256);
  int from_double = 0;
  for (int p = 0; p < 64; ++p) {
    for (int k = 0; k < 128; ++k) {
      const double angle = p * std::exp(-k * std::log(10000.0) / 127);
      from_double += marian[static_cast<size_t>(p) * 256 + k] != static_cast<float>(std::sin(angle));
    }
  }
  CHECK(from_double > 0);
}

TEST_CASE("a sentence's encoding does not depend on the rest of its batch", "[transformer]") {
  // Our packed kernels sum each row's products in one order whatever the other rows, so a row equals
  // itself encoded alone, bit for bit. OpenBLAS picks its kernel and blocking by the matrix's shape, so on
  // the BLAS path a row's sums run in another order beside other rows: last-bit differences that the
  // layers grow (6e-5 for d_model 64 on OpenBLAS 0.3.21, AVX2), far below what a row mixed with another
  // or a wrong mask gives (order 0.1).
  const float tolerance = core::cpu_choice().f32_on_blas ? 1e-3f : 0.0f;
  for (const auto& d : variants_with_wide_heads()) {
    test::TempDir dir;
    test::write_random_model(dir.path(), d, 11);
    models::Transformer model(dir.path());
    std::mt19937 rng(5);
    std::vector<std::vector<int32_t>> batch;
    for (int n : {7, 1, 12, 3}) batch.push_back(random_ids(rng, n, d.config.src_vocab_size, d.tokens.eos));
    const auto together = model.encode(batch);
    float largest_difference = 0.0f;
    for (size_t i = 0; i < batch.size(); ++i) {
      const auto alone = model.encode({batch[i]});
      const float* row = together.memory.data() + together.offsets[i] * d.config.d_model;
      for (size_t j = 0; j < alone.memory.size(); ++j)
        largest_difference = std::max(largest_difference, std::abs(row[j] - alone.memory[j]));
    }
    CAPTURE(d.config.d_model, d.config.n_heads, d.config.encoder_layers);
    REQUIRE(largest_difference <= tolerance);
  }
}

TEST_CASE("decoding with shared, reordered caches equals each row decoded alone", "[transformer]") {
  for (const auto& d : variants_with_wide_heads()) {
    test::TempDir dir;
    test::write_random_model(dir.path(), d, 12, models::DType::kF16);
    models::Transformer model(dir.path());
    std::mt19937 rng(6);
    const std::vector<std::vector<int32_t>> sources = {
        random_ids(rng, 5, d.config.src_vocab_size, d.tokens.eos),
        random_ids(rng, 9, d.config.src_vocab_size, d.tokens.eos)};
    const auto encoded = model.encode(sources);
    const int steps = 6, vocab = d.config.tgt_vocab_size;
    // Four rows: sentence 0 twice, sentence 1 twice; each row follows its own random target prefix.
    std::vector<std::vector<int32_t>> prefixes(4, std::vector<int32_t>{d.tokens.decoder_start});
    std::vector<int> sentence_of_row = {0, 0, 1, 1};
    models::DecoderState state(model, encoded, 4, steps);
    state.start(2);
    state.select_rows({0, 0, 1, 1});
    std::vector<float> logits(4 * vocab);
    std::uniform_int_distribution<int> tok(4, vocab - 1);
    for (int t = 0; t < steps; ++t) {
      std::vector<int32_t> last;
      for (const auto& p : prefixes) last.push_back(p.back());
      state.step(last, sentence_of_row, t);
      state.logits(0, 4, logits.data());
      for (int r = 0; r < 4; ++r) {
        const auto full = test::teacher_forced_logits(model, encoded, sentence_of_row[r], prefixes[r]);
        const float* expected = full.data() + static_cast<size_t>(t) * vocab;
        for (int v = 0; v < vocab; ++v) REQUIRE(logits[r * vocab + v] == Approx(expected[v]).margin(1e-4));
      }
      // Reorder like a beam search would: rows swap and duplicate within their sentence.
      const std::vector<int> src = t % 2 ? std::vector<int>{1, 1, 3, 2} : std::vector<int>{1, 0, 2, 2};
      std::vector<std::vector<int32_t>> next;
      for (int r = 0; r < 4; ++r) next.push_back(prefixes[src[r]]);
      for (auto& p : next) p.push_back(tok(rng));
      prefixes = next;
      state.select_rows(src);
    }
  }
}

TEST_CASE("attention_rounding marian reaches the encoder and the decoder's cross-attention",
          "[transformer]") {
  // The same weights read as nmt's and as Marian's rounding: the encodings differ in their last bits, and
  // so do the decoder's logits over one and the same encoding, which only its cross-attention reads.
  auto d = test::small_description();
  test::TempDir nmt_dir, marian_dir;
  test::write_random_model(nmt_dir.path(), d, 13);
  d.config.attention_rounding = models::AttentionRounding::kMarian;
  test::write_random_model(marian_dir.path(), d, 13);
  models::Transformer nmt_model(nmt_dir.path()), marian_model(marian_dir.path());
  std::mt19937 rng(7);
  const std::vector<std::vector<int32_t>> sources = {
      random_ids(rng, 11, d.config.src_vocab_size, d.tokens.eos)};
  const auto encoded = nmt_model.encode(sources);
  const auto marian_encoded = marian_model.encode(sources);
  REQUIRE(encoded.memory.size() == marian_encoded.memory.size());
  CHECK(encoded.memory != marian_encoded.memory);
  for (size_t i = 0; i < encoded.memory.size(); ++i)
    REQUIRE(marian_encoded.memory[i] == Approx(encoded.memory[i]).margin(1e-4));
  const int vocab = d.config.tgt_vocab_size;
  std::vector<std::vector<float>> logits;
  for (const models::Transformer* model : {&nmt_model, &marian_model}) {
    models::DecoderState state(*model, encoded, 1, 4);
    state.start(1);
    std::vector<int32_t> token = {d.tokens.decoder_start};
    std::vector<float> step_logits(vocab);
    for (int t = 0; t < 3; ++t) {
      state.step(token, {0}, t);
      state.logits(0, 1, step_logits.data());
      token = {static_cast<int32_t>(4 + t)};
    }
    logits.push_back(step_logits);
  }
  CHECK(logits[0] != logits[1]);
  for (int v = 0; v < vocab; ++v) REQUIRE(logits[1][v] == Approx(logits[0][v]).margin(1e-4));
}
