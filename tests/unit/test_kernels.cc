// Each kernel against a naive loop.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/fast_exp.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/kernels.h"
#include "core/marian_math.h"
#include "test_support.h"

using test::random_values;

TEST_CASE("gemm matches a naive triple loop for every transpose combination", "[kernels]") {
  const int m = 7, n = 5, k = 9;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const auto a = random_values(m * k, 1), b = random_values(k * n, 2);
      std::vector<float> c = random_values(m * n, 3), expected = c;
      const int lda = ta ? m : k, ldb = tb ? k : n;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double s = 0;
          for (int p = 0; p < k; ++p) {
            const float av = ta ? a[p * lda + i] : a[i * lda + p];
            const float bv = tb ? b[j * ldb + p] : b[p * ldb + j];
            s += av * bv;
          }
          expected[i * n + j] = static_cast<float>(0.5 * s + 2.0 * expected[i * n + j]);
        }
      }
      core::gemm(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, 2.0f, c.data(), n);
      for (int i = 0; i < m * n; ++i) REQUIRE(c[i] == Approx(expected[i]).margin(1e-5));
    }
  }
}

TEST_CASE("linear computes x W^T + b with W stored [out, in]", "[kernels]") {
  const int rows = 3, in = 4, out = 6;
  const auto x = random_values(rows * in, 4), w = random_values(out * in, 5), b = random_values(out, 6);
  std::vector<float> y(rows * out);
  core::linear(x.data(), rows, in, w.data(), b.data(), out, y.data());
  for (int r = 0; r < rows; ++r) {
    for (int o = 0; o < out; ++o) {
      float s = b[o];
      for (int i = 0; i < in; ++i) s += x[r * in + i] * w[o * in + i];
      REQUIRE(y[r * out + o] == Approx(s).margin(1e-5));
    }
  }
  core::linear(x.data(), rows, in, w.data(), nullptr, out, y.data());
  float s = 0;
  for (int i = 0; i < in; ++i) s += x[i] * w[i];
  REQUIRE(y[0] == Approx(s).margin(1e-5));
}

TEST_CASE("layer_norm normalises each row then scales and shifts", "[kernels]") {
  const int rows = 3, d = 8;
  const auto x = random_values(rows * d, 7), g = random_values(d, 8), b = random_values(d, 9);
  std::vector<float> y(rows * d);
  core::layer_norm(x.data(), rows, d, g.data(), b.data(), 1e-5f, y.data());
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += x[r * d + i];
    mean /= d;
    for (int i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
    var /= d;
    for (int i = 0; i < d; ++i) {
      const double expected = (x[r * d + i] - mean) / std::sqrt(var + 1e-5) * g[i] + b[i];
      REQUIRE(y[r * d + i] == Approx(expected).margin(1e-5));
    }
  }
}

TEST_CASE("layer_norm rounds as marian-decoder's CPU build does, on every kernel level",
          "[kernels][layer_norm_bits]") {
  // 45 values: two 16-lane blocks, the 8-wide tail and five single ones. Expected bits from
  // tools/marian_rounding.py, an exact transcription of Marian's compiled LayerNorm (core/kernels.cc), for
  // values on which a sequential sum, another fold, the mean by division, unfused squares or an unfused
  // output each give other bits. ctest also runs this with NMT_CPU=avx2 and NMT_CPU=portable.
  const std::vector<float> x = {
      7.2561f,  5.4556f, -6.4006f, 10.1211f, 16.8520f, 7.3191f,  7.3196f, 16.7736f, 9.0954f,
      19.6674f, 7.0472f, 7.3240f,  7.3281f,  7.3040f,  8.8410f,  5.2533f, 7.3170f,  8.3534f,
      5.0987f,  6.3896f, 9.5703f,  7.3122f,  4.3558f,  18.2273f, 5.6035f, 7.3044f,  7.2732f,
      4.6839f,  7.7692f, -1.1517f, 4.9191f,  6.1886f,  8.3861f,  8.0965f, 6.2833f,  6.2677f,
      10.3601f, 7.3018f, 14.7706f, 7.1441f,  -6.6150f, 0.4197f,  7.2850f, 0.7244f,  10.7375f};
  const std::vector<float> gamma = {1.479f, 0.828f, 1.251f, 0.970f, 0.520f, 1.295f, 0.864f, 0.644f, 1.108f,
                                    1.060f, 0.678f, 1.051f, 0.738f, 1.197f, 0.561f, 0.777f, 1.222f, 0.689f,
                                    1.372f, 0.546f, 1.452f, 1.183f, 0.763f, 1.445f, 1.261f, 1.356f, 1.301f,
                                    0.549f, 0.814f, 1.467f, 0.513f, 1.095f, 0.664f, 1.326f, 0.712f, 0.940f,
                                    0.599f, 1.111f, 0.859f, 0.598f, 0.535f, 0.574f, 1.283f, 1.374f, 1.004f};
  const std::vector<float> beta = {0.437f,  -0.370f, -0.104f, -0.093f, -0.013f, 0.353f,  -0.442f, -0.403f,
                                   -0.444f, -0.055f, -0.141f, 0.036f,  0.064f,  -0.114f, 0.075f,  -0.146f,
                                   0.312f,  0.145f,  0.376f,  0.081f,  0.456f,  0.207f,  -0.147f, 0.231f,
                                   0.041f,  -0.275f, -0.193f, -0.256f, 0.217f,  -0.429f, -0.087f, 0.265f,
                                   -0.101f, 0.305f,  -0.289f, -0.408f, -0.096f, 0.125f,  -0.191f, -0.230f,
                                   0.445f,  0.162f,  -0.347f, 0.308f,  0.308f};
  const std::vector<uint32_t> want = {
      0x3ede6014u, 0xbf2b0df8u, 0xc0606627u, 0x3eeaa69eu, 0x3f7aa583u, 0x3ebbd9b6u, 0xbedd836au, 0x3f50cc26u,
      0xbd259dd1u, 0x4023eb5cu, 0xbe2e8076u, 0x3d45d878u, 0x3d95ff30u, 0xbdd688d4u, 0x3e8079f6u, 0xbeea08a3u,
      0x3ea63228u, 0x3e96a31fu, 0xbe5cb5abu, 0xbc67aaa1u, 0x3f8fa09bu, 0x3e5f4d8au, 0xbf16b9bcu, 0x405888d9u,
      0xbec08304u, 0xbe8761a8u, 0xbe4381a1u, 0xbf09bbb3u, 0x3e98e84fu, 0xc038b8bcu, 0xbea72d01u, 0x3cf902c7u,
      0x3d410109u, 0x3f063d4fu, 0xbedb337du, 0xbf183788u, 0x3e8bbdf6u, 0x3e084a54u, 0x3f8bc7ffu, 0xbe7a4688u,
      0xbf84336eu, 0xbf1eb626u, 0xbeaf12c5u, 0xbfbd8104u, 0x3f803a86u};
  const int d = static_cast<int>(x.size());
  std::vector<float> y(d);
  core::layer_norm(x.data(), 1, d, gamma.data(), beta.data(), 1e-6f, y.data());
  for (int i = 0; i < d; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &y[i], sizeof bits);
    INFO("value " << i);
    CHECK(bits == want[i]);
  }
}

TEST_CASE("marian_softmax rounds as marian-decoder's CPU Softmax does, on every kernel level",
          "[kernels][marian_softmax]") {
  // Rows of 16 (8 lanes) and 12 values (4 lanes). Expected bits from tools/marian_rounding.py, an exact
  // transcription of Marian's compiled Softmax (core/marian_math.h); on each row a running sum in order,
  // a multiplication by 1 / sum or libm's exp give other bits. ctest also runs this with NMT_CPU=avx2 and
  // NMT_CPU=portable.
  const std::vector<float> x8 = {-4.791f, 1.627f,  0.874f, -3.704f, -1.541f, -1.955f, -0.136f, 1.099f,
                                 -5.155f, -5.745f, 1.522f, -2.105f, 0.861f,  -5.981f, -1.992f, 0.494f};
  const std::vector<uint32_t> want8 = {
      0x39d35084u, 0x3e7ce841u, 0x3dee36d1u, 0x3a9ca7f8u, 0x3c2a4efau, 0x3be125eeu, 0x3d2d8633u, 0x3e152915u,
      0x3992d72fu, 0x3922cba6u, 0x3e63b2d7u, 0x3bc1c96eu, 0x3deb232cu, 0x3900929fu, 0x3bd8f84cu, 0x3da2e7cbu};
  const std::vector<float> x4 = {2.604f, 2.530f,  -5.491f, -5.236f, 1.519f,  0.624f,
                                 0.028f, -3.227f, -0.547f, -0.539f, -0.769f, -4.575f};
  const std::vector<uint32_t> want4 = {0x3ec4847cu, 0x3eb6800fu, 0x38f58ddcu, 0x391e706au,
                                       0x3e04cea7u, 0x3d59106fu, 0x3cef35aau, 0x3a93a994u,
                                       0x3c869abcu, 0x3c87af81u, 0x3c579d0cu, 0x39996d41u};
  for (const auto& [x, want] : {std::pair{x8, want8}, std::pair{x4, want4}}) {
    std::vector<float> y = x;
    core::marian_softmax(y.data(), static_cast<int>(y.size()));
    for (size_t i = 0; i < y.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &y[i], sizeof bits);
      INFO(x.size() << " values, value " << i);
      CHECK(bits == want[i]);
    }
  }
  // Other lengths: libm's expf, one running sum in order, a division.
  const std::vector<float> x7 = {0.3f, -1.2f, 2.5f, -0.7f, 1.1f, -3.0f, 0.0f};
  std::vector<float> y = x7;
  core::marian_softmax(y.data(), 7);
  float sum = 0.0f;
  std::vector<float> e;
  for (float v : x7) sum += e.emplace_back(expf(v - 2.5f));
  for (int i = 0; i < 7; ++i) CHECK(y[i] == e[i] / sum);
}

TEST_CASE("softmax and log_softmax agree with the definitions, masked entries get zero", "[kernels]") {
  std::vector<float> x = {1.0f, 2.0f, -std::numeric_limits<float>::infinity(), 0.5f};
  std::vector<float> p = x, lp = x;
  core::softmax(p.data(), 4);
  core::log_softmax(lp.data(), 4);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(0.5);
  REQUIRE(p[0] == Approx(std::exp(1.0) / z));
  REQUIRE(p[1] == Approx(std::exp(2.0) / z));
  REQUIRE(p[2] == 0.0f);
  REQUIRE(lp[3] == Approx(0.5 - std::log(z)));
  REQUIRE(std::isinf(lp[2]));
  std::vector<float> masked(3, -std::numeric_limits<float>::infinity());
  core::softmax(masked.data(), 3);
  REQUIRE(masked[0] == 0.0f);
}

TEST_CASE("activations: relu, exact gelu, swish", "[kernels]") {
  const std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.7f, 3.0f};
  for (auto act : {core::Activation::kRelu, core::Activation::kGelu, core::Activation::kSwish}) {
    std::vector<float> y = x;
    core::activate(y.data(), y.size(), act);
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i];
      double expected = 0;
      if (act == core::Activation::kRelu) expected = v > 0 ? v : 0;
      if (act == core::Activation::kGelu) expected = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      if (act == core::Activation::kSwish) expected = v / (1 + std::exp(-v));
      REQUIRE(y[i] == Approx(expected).margin(1e-6));
    }
  }
}

TEST_CASE("the vectorisable exp and swish stay within a few ulp of libm's double results", "[kernels]") {
  for (double x = -87.0; x <= 0.0; x += 0.0123) {
    const float xf = static_cast<float>(x);
    const double expected = std::exp(static_cast<double>(xf));
    REQUIRE(std::abs(core::exp_nonpositive(xf) - expected) <= 3e-7 * expected);
  }
  REQUIRE(core::exp_nonpositive_or_zero(-std::numeric_limits<float>::infinity()) == 0.0f);
  REQUIRE(core::exp_nonpositive_or_zero(-100.0f) == 0.0f);
  REQUIRE(core::exp_nonpositive(0.0f) == 1.0f);
  for (double x = -80.0; x <= 80.0; x += 0.0173) {
    const float xf = static_cast<float>(x);
    const double expected = static_cast<double>(xf) / (1.0 + std::exp(-static_cast<double>(xf)));
    REQUIRE(std::abs(core::swish(xf) - expected) <= 5e-7 * std::abs(expected) + 1e-30);
  }
  REQUIRE(core::swish(1e30f) == 1e30f);  // exp(-|x|) never overflows
  REQUIRE(std::abs(core::swish(-1e30f)) < 1e-6f);
}

TEST_CASE("half precision round trip and known values", "[kernels]") {
  REQUIRE(core::half_to_float(0x3c00) == 1.0f);
  REQUIRE(core::half_to_float(0xc000) == -2.0f);
  REQUIRE(core::half_to_float(0x0001) == Approx(5.960464477539063e-08));  // smallest subnormal
  REQUIRE(core::half_to_float(0x7bff) == 65504.0f);
  REQUIRE(std::isinf(core::half_to_float(0x7c00)));
  for (float f : {0.0f, 1.0f, -3.5f, 0.1f, 1e-6f, 65504.0f, -0.000123f}) {
    const float back = core::half_to_float(core::float_to_half(f));
    REQUIRE(back == Approx(f).epsilon(1e-3).margin(1e-7));
  }
  for (uint32_t h = 0; h < 0x7c00; h += 7) {  // every finite positive half survives the round trip
    REQUIRE(core::float_to_half(core::half_to_float(static_cast<uint16_t>(h))) == h);
  }
}

TEST_CASE("bulk half conversion (vectorised where the CPU can) equals the scalar one for every value",
          "[kernels]") {
  std::vector<uint16_t> all(65536 + 5);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> bulk(all.size());
  core::half_to_float(all.data(), bulk.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const float scalar = core::half_to_float(all[i]);
    if (std::isnan(scalar)) {
      REQUIRE(std::isnan(bulk[i]));
    } else {
      REQUIRE(bulk[i] == scalar);
    }
  }
}
