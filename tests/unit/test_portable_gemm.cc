// The plain-loop product used when OpenBLAS does not fit the address space agrees with core::gemm.
#include <catch2/catch.hpp>
#include <vector>

#include "core/gemm.h"
#include "core/portable_gemm.h"
#include "test_support.h"

TEST_CASE("portable_gemm matches gemm for every transpose and beta", "[core][gemm]") {
  const int m = 7, n = 5, k = 9;
  const std::vector<float> a = test::random_values(m * k, 1), b = test::random_values(k * n, 2);
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      for (const float beta : {0.0f, 0.5f}) {
        CAPTURE(ta, tb, beta);
        const int lda = ta ? m : k, ldb = tb ? k : n;
        std::vector<float> expected = test::random_values(m * n, 3), got = expected;
        core::gemm(ta, tb, m, n, k, 0.75f, a.data(), lda, b.data(), ldb, beta, expected.data(), n);
        core::portable_gemm(ta, tb, m, n, k, 0.75f, a.data(), lda, b.data(), ldb, beta, got.data(), n);
        for (int i = 0; i < m * n; ++i) REQUIRE(got[i] == Approx(expected[i]).margin(1e-5));
      }
    }
  }
}
