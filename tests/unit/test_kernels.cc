// Each kernel against a naive loop.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/fast_exp.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/kernels.h"
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
