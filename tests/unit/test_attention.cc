// The decoder's one-row attention (core::attend_one, over a plain and a gathered cache) against a
// double-precision loop, on both paths: the AVX-512 kernel (core/attend_avx512.cc) and the portable one.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/attend_kernels.h"
#include "core/packed_gemm.h"
#include "kernel_test_support.h"
#include "models/layers.h"
#include "test_support.h"

using test::naive_attention;
using test::random_values;

TEST_CASE("one-row attention matches a double-precision loop on every path, head size and length",
          "[kernels][attention]") {
  test::PackedIsaGuard guard;
  for (core::PackedIsa isa : {core::PackedIsa::kAvx512, core::PackedIsa::kAvx2}) {
    core::force_packed_isa(isa);
    for (int n_heads : {1, 2, 4}) {
      for (int dh : {16, 32, 64, 128}) {  // 16: the portable path everywhere
        const int d = n_heads * dh;
        // Lengths around the AVX-512 kernel's groups of 16 keys.
        for (int len : {1, 2, 15, 16, 17, 31, 32, 33, 70}) {
          CAPTURE(static_cast<int>(core::packed_isa()), n_heads, dh, len,
                  core::attend_one_avx512_supports(dh));
          const int n_rows = len + 5;  // a cache with rows no history points at
          const auto q = random_values(d, 1);
          auto k = random_values(static_cast<size_t>(n_rows) * d, 2);
          const auto v = random_values(static_cast<size_t>(n_rows) * d, 3);
          for (float& x : k) x *= 4.0f;  // peaked softmax: some exps far below the max
          std::vector<int32_t> in_order(len), shuffled(n_rows);
          std::iota(in_order.begin(), in_order.end(), 0);
          std::iota(shuffled.begin(), shuffled.end(), 0);
          std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(len));
          shuffled.resize(len);
          std::vector<float> scores(core::attend_one_scratch(len, n_heads) + 1, 7.0f);
          const float guard_value = scores.back();

          std::vector<float> ctx(d);
          core::attend_one(q.data(), k.data(), v.data(), nullptr, len, d, n_heads, scores.data(), ctx.data());
          const auto expected = naive_attention(q, k, v, in_order, d, n_heads);
          for (int i = 0; i < d; ++i) REQUIRE(ctx[i] == Approx(expected[i]).margin(1e-5));

          core::attend_one(q.data(), k.data(), v.data(), shuffled.data(), len, d, n_heads, scores.data(),
                           ctx.data());
          const auto expected_gathered = naive_attention(q, k, v, shuffled, d, n_heads);
          for (int i = 0; i < d; ++i) REQUIRE(ctx[i] == Approx(expected_gathered[i]).margin(1e-5));
          REQUIRE(scores.back() == guard_value);  // the scratch size is enough
        }
      }
    }
  }
}
