// Compact attention caches (f16, int8): the int8 row quantizer's round-trip bound, core::attend_one_half
// and attend_one_int8 on both paths against a double-precision loop over the rows they stand for, the two
// paths against each other, and an int8 checkpoint's decoder with compact caches against f32 caches.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/attend_compact.h"
#include "core/attend_kernels.h"
#include "core/half.h"
#include "core/packed_gemm.h"
#include "kernel_test_support.h"
#include "models/attention_cache.h"
#include "models/decoder_state.h"
#include "teacher_forced.h"
#include "test_support.h"

using test::naive_attention;
using test::random_values;

namespace {

// n rows of d values quantized per head (or rounded to halves), and the values they stand for.
struct QuantizedRows {
  std::vector<int8_t> values;
  std::vector<float> scales, dequantized;
  std::vector<uint16_t> halves;
  core::Int8Rows rows() const { return {values.data(), scales.data()}; }
};

QuantizedRows round_to_half(const std::vector<float>& x, int d) {
  QuantizedRows q;
  q.halves.resize(x.size());
  for (size_t r = 0; r < x.size() / d; ++r)
    core::round_row_half(x.data() + r * d, d, q.halves.data() + r * d);
  for (size_t i = 0; i < x.size(); ++i) {
    REQUIRE(q.halves[i] == core::float_to_half(x[i]));  // the F16C rounding is the scalar one
    q.dequantized.push_back(core::half_to_float(q.halves[i]));
  }
  return q;
}

QuantizedRows quantize(const std::vector<float>& x, int d, int n_heads) {
  const size_t n = x.size() / d;
  const int dh = d / n_heads;
  QuantizedRows q;
  q.values.resize(x.size());
  q.scales.resize(n * n_heads);
  q.dequantized.resize(x.size());
  for (size_t r = 0; r < n; ++r) {
    core::quantize_row_int8(x.data() + r * d, d, n_heads, q.values.data() + r * d,
                            q.scales.data() + r * n_heads);
    for (int i = 0; i < d; ++i)
      q.dequantized[r * d + i] = q.values[r * d + i] * q.scales[r * n_heads + i / dh];
  }
  return q;
}

}  // namespace

// The quantizer's vector clones (AVX-512, AVX2, baseline) must give the scalar rule's values: the product
// x * (127 / max) rounded to float, then to the nearest integer, even on ties. A fused multiply-add rounds
// once and moves the values whose product lies within a rounding error of a half: here every head's max
// is 3 (127 / 3 is inexact) and its other values are the floats nearest to each (k + 1/2) * 3 / 127.
TEST_CASE("the int8 cache quantizer rounds the product, then to the nearest integer, on every CPU",
          "[kernels][attention][int8]") {
  const int dh = GENERATE(64, 71, 5), n_heads = 8, d = dh * n_heads;  // whole vectors, a tail, no vector
  const float absmax = 3.0f, inverse = 127.0f / absmax;
  std::vector<float> near_halves;
  for (int k = -127; k < 127; ++k) {
    float x = (static_cast<float>(k) + 0.5f) / inverse;
    for (int step = 0; step < 4; ++step) x = std::nextafter(x, -10.0f);
    for (int step = 0; step < 9; ++step, x = std::nextafter(x, 10.0f)) near_halves.push_back(x);
  }
  std::vector<float> x;
  for (size_t next = 0; next < near_halves.size();) {
    x.push_back(absmax);  // each head's first value sets its max
    for (int i = 1; i < dh; ++i, ++next) x.push_back(near_halves[next % near_halves.size()]);
  }
  while (x.size() % d) x.push_back(0.0f);
  std::vector<int8_t> values(x.size());
  std::vector<float> scales(x.size() / dh);
  size_t mismatches = 0, ties = 0;
  for (size_t r = 0; r < x.size() / d; ++r) {
    core::quantize_row_int8(x.data() + r * d, d, n_heads, values.data() + r * d, scales.data() + r * n_heads);
    for (int i = 0; i < d; ++i) {
      if (i % dh == 0) continue;                        // the max itself
      volatile float product = x[r * d + i] * inverse;  // rounded to float here, alone
      const float expected = std::nearbyint(product);
      ties += product - std::floor(product) == 0.5f;
      mismatches += values[r * d + i] != static_cast<int8_t>(expected);
    }
  }
  CAPTURE(ties);
  REQUIRE(ties > 0);  // the inputs do reach the rounding the test is about
  REQUIRE(mismatches == 0);
}

TEST_CASE("the int8 cache quantizer keeps every value within half a step of its head's scale",
          "[kernels][attention][int8]") {
  for (int n_heads : {1, 3, 8}) {
    for (int dh : {1, 7, 64}) {
      const int d = n_heads * dh;
      auto x = random_values(static_cast<size_t>(d) * 5, 11);
      for (size_t i = 0; i < x.size(); ++i) x[i] *= static_cast<float>(1 + i % 13);  // heads of other ranges
      std::fill(x.begin(), x.begin() + dh, 0.0f);                                    // a head of zeros
      const QuantizedRows q = quantize(x, d, n_heads);
      for (size_t r = 0; r < 5; ++r) {
        for (int h = 0; h < n_heads; ++h) {
          const float* xh = x.data() + r * d + h * dh;
          float absmax = 0;
          for (int i = 0; i < dh; ++i) absmax = std::max(absmax, std::fabs(xh[i]));
          const float scale = q.scales[r * n_heads + h];
          CAPTURE(n_heads, dh, r, h, absmax, scale);
          REQUIRE(scale == absmax / 127.0f);
          for (int i = 0; i < dh; ++i) {
            const size_t at = r * d + h * dh + i;
            REQUIRE(std::abs(q.values[at]) <= 127);
            REQUIRE(std::fabs(x[at] - q.dequantized[at]) <= scale * (0.5f + 1e-4f));
          }
          if (absmax > 0) {  // the largest magnitude maps onto +-127 exactly
            const auto* first = q.values.data() + r * d + h * dh;
            REQUIRE(std::any_of(first, first + dh, [](int8_t v) { return v == 127 || v == -127; }));
          }
        }
      }
    }
  }
}

TEST_CASE("compact one-row attention matches a double-precision loop on every path, head size and length",
          "[kernels][attention][int8]") {
  test::PackedIsaGuard guard;
  for (bool half : {false, true}) {
    for (int n_heads : {1, 2, 4}) {
      for (int dh : {16, 32, 64, 128}) {  // 16: the portable path everywhere
        const int d = n_heads * dh;
        // Lengths around the AVX-512 kernel's groups of 16 keys.
        for (int len : {1, 2, 15, 16, 17, 31, 33, 70}) {
          const int n_rows = len + 5;  // a cache with rows no history points at
          const auto q = random_values(d, 1);
          auto k = random_values(static_cast<size_t>(n_rows) * d, 2);
          const auto v = random_values(static_cast<size_t>(n_rows) * d, 3);
          for (float& x : k) x *= 4.0f;  // peaked softmax: some exps far below the max
          const QuantizedRows k8 = half ? round_to_half(k, d) : quantize(k, d, n_heads);
          const QuantizedRows v8 = half ? round_to_half(v, d) : quantize(v, d, n_heads);
          // In order, shuffled, and shared (rows several positions point at, as beams share a prefix).
          std::vector<int32_t> in_order(len), shuffled(n_rows), shared(len);
          std::iota(in_order.begin(), in_order.end(), 0);
          std::iota(shuffled.begin(), shuffled.end(), 0);
          std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(len));
          shuffled.resize(len);
          for (int j = 0; j < len; ++j) shared[j] = (j * 7) % std::max(1, len / 3 + 1);
          std::vector<std::vector<float>> by_isa;
          for (core::PackedIsa isa : {core::PackedIsa::kAvx512, core::PackedIsa::kAvx2}) {
            core::force_packed_isa(isa);
            for (const auto* entries : {&in_order, &shuffled, &shared}) {
              CAPTURE(half, static_cast<int>(core::packed_isa()), n_heads, dh, len,
                      core::attend_one_avx512_supports(dh), entries == &in_order, entries == &shared);
              std::vector<float> scores(core::attend_one_scratch(len, n_heads) + 1, 7.0f);
              const float guard_value = scores.back();
              std::vector<float> ctx(d);
              const int32_t* rows = entries == &in_order ? nullptr : entries->data();
              if (half) {
                core::attend_one_half(q.data(), {k8.halves.data()}, {v8.halves.data()}, rows, len, d, n_heads,
                                      scores.data(), ctx.data());
              } else {
                core::attend_one_int8(q.data(), k8.rows(), v8.rows(), rows, len, d, n_heads, scores.data(),
                                      ctx.data());
              }
              const auto expected = naive_attention(q, k8.dequantized, v8.dequantized, *entries, d, n_heads);
              for (int i = 0; i < d; ++i) REQUIRE(ctx[i] == Approx(expected[i]).margin(1e-5));
              REQUIRE(scores.back() == guard_value);  // the scratch size is enough
              by_isa.push_back(ctx);
            }
          }
          // The forced portable path agrees with the AVX-512 one (on a CPU without AVX-512 both are
          // portable).
          for (size_t e = 0; e < 3; ++e) {
            for (int i = 0; i < d; ++i) REQUIRE(by_isa[e][i] == Approx(by_isa[e + 3][i]).margin(1e-5));
          }
        }
      }
    }
  }
}

TEST_CASE(
    "an int8 checkpoint keeps int8 caches, f16 and int8 caches' logits stay within a tolerance of f32's",
    "[int8][transformer][attention]") {
  auto base = test::small_description();
  auto odd = base;  // d_model not a multiple of the panel: q, k and v unstacked
  odd.config.d_model = 20;
  for (const auto& desc : {base, odd}) {
    test::TempDir f32_dir, i8_dir;
    test::write_random_model(f32_dir.path(), desc, 21, models::DType::kF32);
    test::write_random_model(i8_dir.path(), desc, 21, models::DType::kI8);
    models::Transformer f32(f32_dir.path()), i8(i8_dir.path());
    REQUIRE(models::attention_cache_type(f32.weights()) == models::CacheType::kF32);
    REQUIRE(models::attention_cache_type(i8.weights()) == models::CacheType::kInt8);
    const std::vector<std::vector<int32_t>> sources = {{5, 9, 12, 7, 4, 11, desc.tokens.eos}};
    const auto encoded = i8.encode(sources);
    const std::vector<int32_t> prefix = {desc.tokens.decoder_start, 5, 9, 7, 6, 8};
    const auto own = test::teacher_forced_logits(i8, encoded, 0, prefix);
    const auto f32_caches = test::teacher_forced_logits(i8, encoded, 0, prefix, models::CacheType::kF32);
    // Tolerance: 2% of the logits' spread (random weights through 2+2 layers amplify the caches' rounding:
    // f16 caches measure about 1%, int8 ones about 1.5%).
    for (const auto& [type, tolerance] :
         {std::pair{models::CacheType::kF16, 0.02f}, {models::CacheType::kInt8, 0.02f}}) {
      const auto compact = test::teacher_forced_logits(i8, encoded, 0, prefix, type);
      if (type == models::CacheType::kInt8) REQUIRE(own == compact);  // the checkpoint chose int8
      float lo = f32_caches[0], hi = f32_caches[0], worst = 0;
      for (size_t i = 0; i < f32_caches.size(); ++i) {
        lo = std::min(lo, f32_caches[i]);
        hi = std::max(hi, f32_caches[i]);
        worst = std::max(worst, std::fabs(f32_caches[i] - compact[i]));
      }
      CAPTURE(desc.config.d_model, static_cast<int>(type), worst, hi - lo);
      CHECK(worst <= tolerance * (hi - lo));
      CHECK(worst > 0.0f);  // the compact caches really ran
    }
  }
}

TEST_CASE("an int8 checkpoint records attention from its compact caches, close to the f32 caches' weights",
          "[int8][attention]") {
  const auto desc = test::small_description();
  test::TempDir dir;
  test::write_random_model(dir.path(), desc, 21, models::DType::kI8);
  const models::Transformer model(dir.path());
  const models::EncodedBatch encoded = model.encode({{5, 9, 12, 7, 4, 11, desc.tokens.eos}});
  const std::vector<int32_t> fed = {desc.tokens.decoder_start, 5, 9, 7, 6};
  models::AttentionRequest request;
  request.cross = request.decoder = true;
  auto record = [&](models::CacheType caches) {
    models::DecoderState state(model, encoded, 1, static_cast<int>(fed.size()), &request, caches);
    state.start(1);
    for (size_t p = 0; p < fed.size(); ++p) state.step({fed[p]}, {0}, static_cast<int>(p));
    return state.attention(0, std::vector<int32_t>(fed.begin() + 1, fed.end()));
  };
  const models::AttentionMatrices f32 = record(models::CacheType::kF32);
  for (const auto type : {models::CacheType::kF16, models::CacheType::kInt8}) {
    const models::AttentionMatrices compact = record(type);
    const int t = static_cast<int>(fed.size()), s = 7;
    REQUIRE(compact.target_len == t);
    for (const auto kind : {&models::AttentionMatrices::cross, &models::AttentionMatrices::decoder}) {
      const int cols = kind == &models::AttentionMatrices::cross ? s : t;
      REQUIRE((compact.*kind).size() == static_cast<size_t>(desc.config.decoder_layers));
      float worst = 0;
      for (size_t l = 0; l < (compact.*kind).size(); ++l) {
        const auto& ours = (compact.*kind)[l];
        const auto& theirs = (f32.*kind)[l];
        REQUIRE(ours.size() == static_cast<size_t>(compact.n_heads) * t * cols);
        for (size_t row = 0; row < ours.size() / cols; ++row) {
          double sum = 0;
          for (int j = 0; j < cols; ++j) {
            sum += ours[row * cols + j];
            worst = std::max(worst, std::fabs(ours[row * cols + j] - theirs[row * cols + j]));
          }
          REQUIRE(sum == Approx(1.0).margin(1e-5));
        }
      }
      CAPTURE(static_cast<int>(type), cols, worst);
      CHECK(worst <= 0.02f);  // weights are probabilities: 2 points of one
      CHECK(worst > 0.0f);    // read from the compact caches
    }
  }
}
