// The int8 kernels against a scalar int32 reference (bit for bit), on every kernel this CPU has, and the
// quantizer's error bound.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/cpu.h"
#include "core/int8_gemm.h"
#include "core/int8_kernels.h"
#include "test_support.h"

namespace {

std::vector<int8_t> random_int8(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-127, 127);
  std::vector<int8_t> q(n);
  for (int8_t& v : q) v = static_cast<int8_t>(value(rng));
  return q;
}

core::Int8Matrix matrix_of(const std::vector<int8_t>& w, const std::vector<float>& scales, int out, int in) {
  core::Int8Matrix m(out, in);
  m.pack_rows(0, out, w.data(), scales.data());
  return m;
}

struct KernelGuard {  // restores the CPU's own choice after a test forces another
  core::Int8Kernel saved = core::int8_kernel();
  ~KernelGuard() { core::force_int8_kernel(saved); }
};

// Runs body once per int8 kernel this CPU has, forced one by one.
template <class Body>
void for_each_int8_kernel(const Body& body) {
  KernelGuard guard;
  for (core::Int8Kernel k :
       {core::Int8Kernel::kAvx512Vnni, core::Int8Kernel::kAvx2, core::Int8Kernel::kPortable}) {
    core::force_int8_kernel(k);
    if (core::int8_kernel() == k) body(k);
  }
}

}  // namespace

TEST_CASE("int8 products equal a scalar int32 loop, bit for bit, on every kernel", "[kernels][int8]") {
  int kernels = 0;
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    ++kernels;
    for (int rows : {1, 2, 3, 4, 5, 11, 12, 13, 25, 130}) {
      for (int out : {1, 15, 16, 17, 31, 33, 100}) {
        for (int in : {1, 3, 4, 5, 63, 130}) {
          CAPTURE(core::int8_kernel_name(kernel), rows, out, in);
          const auto x = random_int8(static_cast<size_t>(rows) * in, rows * 7 + in);
          const auto w = random_int8(static_cast<size_t>(out) * in, out * 13 + in);
          const core::Int8Matrix m = matrix_of(w, std::vector<float>(out, 1.0f), out, in);
          std::vector<int32_t> got(static_cast<size_t>(rows) * out, -1);
          core::int8_products(x.data(), rows, m, got.data());
          std::vector<int32_t> want(got.size());
          for (int r = 0; r < rows; ++r)
            for (int j = 0; j < out; ++j) {
              int32_t acc = 0;
              for (int k = 0; k < in; ++k) acc += int32_t{x[r * in + k]} * w[j * in + k];
              want[r * out + j] = acc;
            }
          REQUIRE(got == want);
        }
      }
    }
  });
  CHECK(kernels >= 1);
}

TEST_CASE("int8 products never saturate: extreme values of either sign", "[kernels][int8]") {
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    for (int8_t xv : {int8_t{127}, int8_t{-127}}) {
      for (int8_t wv : {int8_t{127}, int8_t{-127}}) {
        CAPTURE(core::int8_kernel_name(kernel), int{xv}, int{wv});
        const int rows = 13, out = 33, in = 2048;
        const std::vector<int8_t> x(static_cast<size_t>(rows) * in, xv), w(static_cast<size_t>(out) * in, wv);
        const core::Int8Matrix m = matrix_of(w, std::vector<float>(out, 1.0f), out, in);
        std::vector<int32_t> got(static_cast<size_t>(rows) * out);
        core::int8_products(x.data(), rows, m, got.data());
        for (int32_t v : got) REQUIRE(v == int32_t{xv} * wv * in);
      }
    }
  });
}

namespace {

// Values that make an int16 pair sum overflow if a kernel lets one form: the extremes of either sign,
// in runs that agree in sign (largest sums) and alternate (largest cancellations), mixed with random ones.
std::vector<int8_t> extreme_int8(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> kind(0, 5), value(-127, 127);
  std::vector<int8_t> q(n);
  for (size_t i = 0; i < n; ++i) {
    switch (kind(rng)) {
      case 0:
        q[i] = 127;
        break;
      case 1:
        q[i] = -127;
        break;
      case 2:
        q[i] = static_cast<int8_t>(i % 2 ? 127 : -127);
        break;
      default:
        q[i] = static_cast<int8_t>(value(rng));
    }
  }
  return q;
}

}  // namespace

TEST_CASE("the AVX2 int8 kernel equals the portable one at every tile edge and on extreme values",
          "[kernels][int8]") {
  if (core::cpu_int8_kernel() == core::Int8Kernel::kPortable)
    return test::skip("needs AVX2, which this CPU (or NMT_CPU) does not give");
  KernelGuard guard;
  // Rows around the tile heights (6 and 12), columns around quarters and panels, k around groups.
  for (int rows : {1, 5, 6, 7, 11, 12, 13, 18, 31}) {
    for (int out : {1, 4, 5, 8, 9, 16, 17, 40}) {
      for (int in : {1, 2, 4, 7, 8, 9, 64, 515}) {
        for (bool extreme : {false, true}) {
          CAPTURE(rows, out, in, extreme);
          const unsigned seed = static_cast<unsigned>(rows * 1000 + out * 10 + in);
          const auto x = extreme ? extreme_int8(static_cast<size_t>(rows) * in, seed)
                                 : random_int8(static_cast<size_t>(rows) * in, seed);
          const auto w = extreme ? extreme_int8(static_cast<size_t>(out) * in, seed + 1)
                                 : random_int8(static_cast<size_t>(out) * in, seed + 1);
          const core::Int8Matrix m = matrix_of(w, std::vector<float>(out, 1.0f), out, in);
          std::vector<int32_t> avx2(static_cast<size_t>(rows) * out), portable(avx2.size());
          core::force_int8_kernel(core::Int8Kernel::kAvx2);
          REQUIRE(core::int8_kernel() == core::Int8Kernel::kAvx2);
          core::int8_products(x.data(), rows, m, avx2.data());
          core::force_int8_kernel(core::Int8Kernel::kPortable);
          core::int8_products(x.data(), rows, m, portable.data());
          REQUIRE(avx2 == portable);
        }
      }
    }
  }
}

TEST_CASE("int8_linear is the documented arithmetic, bit for bit, on every kernel", "[kernels][int8]") {
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    for (int rows : {1, 5, 12, 37}) {
      for (int out : {7, 48, 130, 2100}) {  // 2100 x 257: several column blocks, a partial last panel
        for (int in : {9, 64, 257}) {
          for (bool with_bias : {false, true}) {
            CAPTURE(core::int8_kernel_name(kernel), rows, out, in, with_bias);
            const auto x = test::random_values(static_cast<size_t>(rows) * in, rows + in);
            auto wf = test::random_values(static_cast<size_t>(out) * in, out + 3 * in);
            const auto bias = test::random_values(out, 99);
            core::Int8Matrix m(out, in);
            m.quantize_rows(0, out, wf.data());
            std::vector<float> y(static_cast<size_t>(rows) * out);
            core::int8_linear(x.data(), rows, m, with_bias ? bias.data() : nullptr, y.data());
            std::vector<int8_t> q(in);
            for (int r = 0; r < rows; ++r) {
              const float row_scale = core::quantize_row(&x[r * in], in, q.data());
              for (int j = 0; j < out; ++j) {
                int32_t acc = 0;
                for (int k = 0; k < in; ++k) acc += int32_t{q[k]} * m.weight(j, k);
                float want = static_cast<float>(acc) * (row_scale * m.scales()[j]);
                if (with_bias) want = want + bias[j];
                REQUIRE(std::memcmp(&want, &y[r * out + j], sizeof want) == 0);
              }
            }
          }
        }
      }
    }
  });
}

TEST_CASE("the quantizer's round trip is within half a step", "[kernels][int8]") {
  for (int n : {1, 7, 64, 513}) {
    for (unsigned seed : {1u, 2u, 3u}) {
      auto x = test::random_values(n, seed);
      for (float& v : x) v *= static_cast<float>(seed * seed);  // several magnitudes
      std::vector<int8_t> q(n);
      const float scale = core::quantize_row(x.data(), n, q.data());
      float amax = 0;
      for (float v : x) amax = std::max(amax, std::fabs(v));
      CHECK(scale == amax / 127.0f);
      bool extreme = false;
      for (int i = 0; i < n; ++i) {
        CAPTURE(n, seed, i, x[i], int{q[i]});
        REQUIRE(q[i] >= -127);
        REQUIRE(std::fabs(x[i] - q[i] * scale) <= 0.5f * scale * (1 + 1e-5f));
        extreme = extreme || std::abs(q[i]) == 127;
      }
      CHECK(extreme);  // the largest value uses the whole range
    }
  }
  std::vector<float> zeros(10, 0.0f);
  std::vector<int8_t> q(10, 5);
  CHECK(core::quantize_row(zeros.data(), 10, q.data()) == 1.0f);
  CHECK(q == std::vector<int8_t>(10, 0));
}

TEST_CASE("the VNNI quantizer gives quantize_row's scale and values, shifted to u8 and padded",
          "[kernels][int8]") {
  if (core::cpu_int8_kernel() != core::Int8Kernel::kAvx512Vnni)
    return test::skip("needs AVX-512 VNNI, which this CPU (or NMT_CPU) does not give");
  for (int n : {1, 15, 16, 17, 100, 512, 2048}) {
    for (unsigned seed : {1u, 2u}) {
      auto x = test::random_values(n, seed + n);
      // Values that land exactly between two steps: round to even, as nearbyint does.
      for (int i = 0; i + 1 < n; i += 7) x[i] = (i % 2 ? 2.5f : -3.5f) * (1.0f / 127.0f);
      x[n - 1] = 1.0f;  // max |x| = 1: the ties above stay ties
      const int padded = (n + 3) / 4 * 4 + 4;
      std::vector<int8_t> q(n);
      std::vector<uint8_t> u(padded, 7);
      const float want = core::quantize_row(x.data(), n, q.data());
      const float got = core::int8::quantize_row_u8_avx512(x.data(), n, padded, u.data());
      CAPTURE(n, seed);
      REQUIRE(std::memcmp(&want, &got, sizeof want) == 0);
      for (int i = 0; i < padded; ++i) REQUIRE(int{u[i]} == (i < n ? q[i] + 128 : 128));
    }
  }
  std::vector<float> zeros(5, 0.0f);
  std::vector<uint8_t> u(8, 7);
  CHECK(core::int8::quantize_row_u8_avx512(zeros.data(), 5, 8, u.data()) == 1.0f);
  CHECK(u == std::vector<uint8_t>(8, 128));
}

TEST_CASE("an int8 row dequantizes to q x scale, -128 is refused", "[kernels][int8]") {
  const auto w = random_int8(3 * 5, 4);
  const core::Int8Matrix m = matrix_of(w, {0.5f, 2.0f, 0.25f}, 3, 5);
  std::vector<float> row(5);
  m.copy_row(1, row.data());
  for (int k = 0; k < 5; ++k) CHECK(row[k] == w[5 + k] * 2.0f);
  core::Int8Matrix bad(1, 2);
  const int8_t low[2] = {1, -128};
  const float scale = 1.0f;
  CHECK_THROWS(bad.pack_rows(0, 1, low, &scale));
}

TEST_CASE("the int8 kernel is the best this CPU has", "[kernels][int8][cpu]") {
  // An independent probe (the compiler's) says what the CPU has; unless NMT_CPU lowers the level, the
  // kernel in use must match it: a kernel silently not used fails here.
  const char* level = std::getenv("NMT_CPU");
  if (level && *level && std::string(level) != "avx512" && std::string(level) != "blas")
    return test::skip("NMT_CPU=" + std::string(level) + " lowers the level below the CPU's");
#if defined(__x86_64__)
  __builtin_cpu_init();
  core::Int8Kernel expected = core::Int8Kernel::kPortable;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) expected = core::Int8Kernel::kAvx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni"))
    expected = core::Int8Kernel::kAvx512Vnni;
  CHECK(core::cpu_int8_kernel() == expected);
  CHECK(core::int8_kernel() == expected);
#endif
}

TEST_CASE("a column view of a stacked int8 matrix gives its block's products", "[kernels][int8]") {
  const int rows = 7, in = 40, block = 48;
  const auto x = test::random_values(static_cast<size_t>(rows) * in, 5);
  const auto w = test::random_values(static_cast<size_t>(3) * block * in, 6);
  core::Int8Matrix stacked(3 * block, in);
  stacked.quantize_rows(0, 3 * block, w.data());
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    for (int b = 0; b < 3; ++b) {
      CAPTURE(core::int8_kernel_name(kernel), b);
      core::Int8Matrix own(block, in);
      own.quantize_rows(0, block, w.data() + static_cast<size_t>(b) * block * in);
      std::vector<float> from_view(static_cast<size_t>(rows) * block), from_own(from_view.size());
      core::int8_linear(x.data(), rows, stacked.columns(b * block, block), nullptr, from_view.data());
      core::int8_linear(x.data(), rows, own, nullptr, from_own.data());
      REQUIRE(from_view == from_own);
    }
  });
  CHECK_THROWS(stacked.columns(8, 16));
}

TEST_CASE("rows quantized once give int8_linear's products for any run of them", "[kernels][int8]") {
  const int rows = 29, in = 70, out = 1100;  // 70: a padded last group
  const auto x = test::random_values(static_cast<size_t>(rows) * in, 11);
  const auto w = test::random_values(static_cast<size_t>(out) * in, 12);
  const auto bias = test::random_values(out, 13);
  core::Int8Matrix m(out, in);
  m.quantize_rows(0, out, w.data());
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    core::QuantizedRows q(rows, in);
    q.quantize(x.data(), rows, in);
    REQUIRE(q.rows() == rows);
    for (const auto& [first, n] : {std::pair{0, rows}, {5, 13}, {28, 1}}) {
      CAPTURE(core::int8_kernel_name(kernel), first, n);
      std::vector<float> once(static_cast<size_t>(n) * out), each(once.size());
      core::int8_linear(q, first, n, m.columns(0, out), bias.data(), once.data());
      core::int8_linear(x.data() + static_cast<size_t>(first) * in, n, m, bias.data(), each.data());
      REQUIRE(std::memcmp(once.data(), each.data(), once.size() * sizeof(float)) == 0);
    }
    std::vector<float> y(out);
    CHECK_THROWS_AS(core::int8_linear(q, rows, 1, m, nullptr, y.data()), std::logic_error);  // past the rows
    core::Int8Matrix narrow(out, in - 1);
    CHECK_THROWS_AS(core::int8_linear(q, 0, 1, narrow, nullptr, y.data()), std::logic_error);
  });
  // Rows quantized for one kernel are refused by another (their layouts differ).
  KernelGuard guard;
  core::QuantizedRows q;
  q.quantize(x.data(), rows, in);
  if (core::force_int8_kernel(core::Int8Kernel::kPortable) != core::Int8Kernel::kPortable) {
    std::vector<float> y(out);
    CHECK_THROWS_AS(core::int8_linear(q, 0, 1, m, nullptr, y.data()), std::logic_error);
  }
}

TEST_CASE("intgemm's input scalings and arithmetic, plain and shifted, on every kernel",
          "[kernels][int8][intgemm_arithmetic]") {
  using Kind = core::Int8InputScaling::Kind;
  const int out = 40, in = 37;
  auto wf = test::random_values(static_cast<size_t>(out) * in, 5);
  const auto bias = test::random_values(out, 6);
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    for (int rows : {1, 3, 13}) {
      auto x = test::random_values(static_cast<size_t>(rows) * in, rows);
      x[static_cast<size_t>(rows - 1) * in + 2] = 9.0f;  // the largest value sits in the last row
      for (const Kind kind : {Kind::kPerMatrix, Kind::kFixed}) {
        for (const bool shifted : {false, true}) {
          for (const bool with_bias : {false, true}) {
            CAPTURE(core::int8_kernel_name(kernel), rows, static_cast<int>(kind), shifted, with_bias);
            core::Int8Matrix m(out, in);
            m.quantize_rows(0, out, wf.data());
            m.set_input_scaling({kind, kind == Kind::kFixed ? 30.0f : 0.0f, shifted});
            std::vector<float> y(static_cast<size_t>(rows) * out);
            core::int8_linear(x.data(), rows, m, with_bias ? bias.data() : nullptr, y.data());
            // kPerMatrix: 127 / 9 for every row; kFixed: 30, so 9 x 30 clamps to 127.
            const float ma = kind == Kind::kFixed ? 30.0f : 127.0f / 9.0f;
            std::vector<int8_t> q(in);
            for (int r = 0; r < rows; ++r) {
              core::quantize_row_by(&x[static_cast<size_t>(r) * in], in, ma, q.data());
              if (r == rows - 1) REQUIRE(q[2] == 127);
              for (int j = 0; j < out; ++j) {
                int32_t acc = 0, colsum = 0;
                for (int k = 0; k < in; ++k) {
                  acc += int32_t{q[k]} * m.weight(j, k);
                  colsum += m.weight(j, k);
                }
                const float mb = 1.0f / m.scales()[j];
                const float u = 1.0f / (ma * mb);
                const float b = with_bias ? bias[j] : 0.0f;
                float want;
                if (shifted) {
                  // intgemm's PrepareBias and product callbacks: one rounding for each multiply-add.
                  const float per_sum = -((127.0f / ma) * (127.0f / mb)) / 127.0f;
                  const float prepared = with_bias ? std::fma(static_cast<float>(colsum), per_sum, b)
                                                   : static_cast<float>(colsum) * per_sum;
                  want = std::fma(static_cast<float>(acc + 127 * colsum), u, prepared);
                } else {
                  // intgemm's callback with a bias: one rounding, as for the shifted form.
                  want = with_bias ? std::fma(static_cast<float>(acc), u, b) : static_cast<float>(acc) * u;
                }
                REQUIRE(std::memcmp(&want, &y[static_cast<size_t>(r) * out + j], sizeof want) == 0);
              }
            }
          }
        }
      }
    }
  });
}

TEST_CASE("the shifted form adds 127 x the column sum in integers, as intgemm's accumulator holds it",
          "[kernels][int8][intgemm_arithmetic]") {
  using Kind = core::Int8InputScaling::Kind;
  // Wide rows of large inputs and positive weights: the accumulator passes 2^24, where a float sum of the
  // product and the offset would round twice.
  const int out = 16, in = 8192, rows = 2;
  auto wf = test::random_values(static_cast<size_t>(out) * in, 21);
  for (float& v : wf) v = 0.5f + std::fabs(v);
  const std::vector<float> x(static_cast<size_t>(rows) * in, 100.0f / 30.0f);  // quantized to 100
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    CAPTURE(core::int8_kernel_name(kernel));
    core::Int8Matrix m(out, in);
    m.quantize_rows(0, out, wf.data());
    m.set_input_scaling({Kind::kFixed, 30.0f, true});
    std::vector<float> y(static_cast<size_t>(rows) * out);
    core::int8_linear(x.data(), rows, m, nullptr, y.data());
    int past_exact = 0;
    for (int j = 0; j < out; ++j) {
      int32_t acc = 0, colsum = 0;
      for (int k = 0; k < in; ++k) {
        acc += 100 * m.weight(j, k);
        colsum += m.weight(j, k);
      }
      past_exact += acc > (1 << 24);
      const float mb = 1.0f / m.scales()[j];
      const float per_sum = -((127.0f / 30.0f) * (127.0f / mb)) / 127.0f;
      const float want = std::fma(static_cast<float>(acc + 127 * colsum), 1.0f / (30.0f * mb),
                                  static_cast<float>(colsum) * per_sum);
      for (int r = 0; r < rows; ++r)
        REQUIRE(std::memcmp(&want, &y[static_cast<size_t>(r) * out + j], sizeof want) == 0);
    }
    CHECK(past_exact == out);
  });
}

TEST_CASE("quantize_row_by rounds to even and clamps far values of either sign", "[kernels][int8]") {
  const std::vector<float> x = {0.5f, 1.5f, -2.5f, 1e30f, -1e30f, 126.6f, -127.4f, 0.0f};
  std::vector<int8_t> q(x.size());
  core::quantize_row_by(x.data(), static_cast<int>(x.size()), 1.0f, q.data());
  CHECK(q == std::vector<int8_t>{0, 2, -2, 127, -127, 127, -127, 0});
  if (core::cpu_int8_kernel() != core::Int8Kernel::kAvx512Vnni) return;
  std::vector<uint8_t> u(12, 7);
  core::int8::quantize_row_by_u8_avx512(x.data(), static_cast<int>(x.size()), 1.0f, 12, u.data());
  for (size_t i = 0; i < u.size(); ++i) CHECK(int{u[i]} == (i < x.size() ? q[i] + 128 : 128));
}

TEST_CASE("intgemm's arithmetic uses the weight multiplier the model gives, not 1 / scale",
          "[kernels][int8][intgemm_arithmetic]") {
  using Kind = core::Int8InputScaling::Kind;
  const int out = 48, in = 64, rows = 4;
  // 245.37358 is not 1 / (1 / itself) in float, as a Marian weight's multiplier can be.
  const float mb = 245.37358f;
  REQUIRE(1.0f / (1.0f / mb) != mb);
  // Positive weights and a small input multiplier: large column sums, so the shifted form's terms are
  // large and cancel, where one ulp of the multiplier shows.
  auto wf = test::random_values(static_cast<size_t>(out) * in, 11);
  for (float& v : wf) v = std::fabs(v);
  std::vector<int8_t> wq(wf.size());
  core::quantize_row_by(wf.data(), static_cast<int>(wf.size()), mb * 0.5f, wq.data());
  const std::vector<float> scales(out, 1.0f / mb);
  const auto x = test::random_values(static_cast<size_t>(rows) * in, 12);
  const auto bias = test::random_values(out, 13);
  const float ma = 3.0f;  // with it, 1 / (ma * mb) itself differs by an ulp
  for_each_int8_kernel([&](core::Int8Kernel kernel) {
    CAPTURE(core::int8_kernel_name(kernel));
    core::Int8Matrix plain(out, in), exact(out, in);
    plain.pack_rows(0, out, wq.data(), scales.data());
    exact.pack_rows(0, out, wq.data(), scales.data());
    exact.set_multipliers(0, out, mb);
    CHECK(plain.multipliers() == nullptr);
    CHECK(exact.columns(16, 16).multipliers()[0] == mb);
    for (core::Int8Matrix* m : {&plain, &exact}) m->set_input_scaling({Kind::kFixed, ma, true});
    std::vector<float> y_plain(static_cast<size_t>(rows) * out), y_exact(y_plain.size());
    core::int8_linear(x.data(), rows, plain, bias.data(), y_plain.data());
    core::int8_linear(x.data(), rows, exact, bias.data(), y_exact.data());
    std::vector<int8_t> q(in);
    int differ = 0, rounded_twice = 0;
    for (int r = 0; r < rows; ++r) {
      core::quantize_row_by(&x[static_cast<size_t>(r) * in], in, ma, q.data());
      for (int j = 0; j < out; ++j) {
        int32_t acc = 0, colsum = 0;
        for (int k = 0; k < in; ++k) {
          acc += int32_t{q[k]} * exact.weight(j, k);
          colsum += exact.weight(j, k);
        }
        const float u = 1.0f / (ma * mb);
        const float per_sum = -((127.0f / ma) * (127.0f / mb)) / 127.0f;
        const float prepared = std::fma(static_cast<float>(colsum), per_sum, bias[j]);
        const float want = std::fma(static_cast<float>(acc + 127 * colsum), u, prepared);
        const float unfused = static_cast<float>(acc + 127 * colsum) * u + prepared;
        const size_t at = static_cast<size_t>(r) * out + j;
        REQUIRE(std::memcmp(&want, &y_exact[at], sizeof want) == 0);
        differ += std::memcmp(&y_plain[at], &y_exact[at], sizeof want) != 0;
        rounded_twice += std::memcmp(&unfused, &want, sizeof want) != 0;
      }
    }
    CHECK(differ > 0);         // 1 / scale's multiplier gives other bits: the test sees which one was used
    CHECK(rounded_twice > 0);  // and a multiply then an add would too
  });
}
