// core::WeightPacker: the form core's products use (panels, or plain rows under BLAS), stacking only where
// every block fills whole panels, and the same products whatever the form.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "core/gemm.h"
#include "core/weight_packer.h"
#include "kernel_test_support.h"
#include "test_support.h"

namespace {

// f32 rows [rows, in] served both ways, counting how each is read.
struct Source {
  std::vector<float> w;
  int rows, in;
  int row_reads = 0, whole_reads = 0;
  Source(int r, int i, unsigned seed)
      : w(test::random_values(static_cast<size_t>(r) * i, seed)), rows(r), in(i) {}
  core::StoredWeights stored() {
    return {rows, false,
            [this](int first, int n, void* dst) {
              ++row_reads;
              std::copy(w.begin() + static_cast<size_t>(first) * in,
                        w.begin() + static_cast<size_t>(first + n) * in, static_cast<float*>(dst));
            },
            [this] {
              ++whole_reads;
              return w.data();
            }};
  }
};

std::vector<float> product(const core::F32Weights& w, const std::vector<float>& x, int rows, int out,
                           int in) {
  std::vector<float> y(static_cast<size_t>(rows) * out);
  if (w.packed)
    core::packed_linear(x.data(), rows, *w.packed, nullptr, y.data());
  else
    core::linear(x.data(), rows, in, w.rows, nullptr, out, y.data());
  return y;
}

}  // namespace

TEST_CASE("WeightPacker keeps plain rows for BLAS and packs for the packed kernels", "[kernels][packed]") {
  test::PackedIsaGuard guard;
  const int in = 24;
  const auto x = test::random_values(3 * in, 9);
  for (const bool blas : {true, false}) {
    CAPTURE(blas);
    if (blas) core::force_packed_isa(core::PackedIsa::kNone);
    if (!blas && core::packed_isa() == core::PackedIsa::kNone) continue;  // no packed kernel on this CPU
    core::PackedArena arena;
    std::vector<std::unique_ptr<core::PackedMatrix>> owner;
    core::WeightPacker packer(arena, owner);
    Source s(20, in, 3);
    const core::F32Weights w = packer.prepare(s.stored(), in);
    CHECK((w.rows != nullptr) == blas);
    CHECK((w.packed != nullptr) == !blas);
    CHECK(s.whole_reads == (blas ? 1 : 0));
    CHECK((s.row_reads > 0) == !blas);
    const auto y = product(w, x, 3, 20, in);
    std::vector<float> expected(3 * 20);
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 20; ++j) {
        double acc = 0;
        for (int i = 0; i < in; ++i) acc += static_cast<double>(x[r * in + i]) * s.w[j * in + i];
        expected[r * 20 + j] = static_cast<float>(acc);
      }
    for (size_t i = 0; i < y.size(); ++i) CHECK(y[i] == Approx(expected[i]).margin(1e-4));
  }
}

TEST_CASE("WeightPacker stacks blocks of whole panels, each block served by its columns",
          "[kernels][packed]") {
  test::PackedIsaGuard guard;
  const int in = 8;
  const auto x = test::random_values(2 * in, 4);
  for (const int block_rows : {16, 20}) {
    for (const bool blas : {true, false}) {
      CAPTURE(block_rows, blas);
      if (blas) core::force_packed_isa(core::PackedIsa::kNone);
      if (!blas && core::packed_isa() == core::PackedIsa::kNone) continue;
      core::PackedArena arena;
      std::vector<std::unique_ptr<core::PackedMatrix>> owner;
      core::WeightPacker packer(arena, owner);
      Source a(block_rows, in, 1), b(block_rows, in, 2);
      std::vector<core::F32Weights> each;
      const core::F32Weights stacked = packer.prepare_stacked({a.stored(), b.stored()}, in, each);
      REQUIRE(each.size() == 2);
      const bool stacks = !blas && block_rows % core::PackedMatrix::kPanel == 0;
      CHECK((stacked.packed != nullptr) == stacks);
      CHECK(stacked.rows == nullptr);
      const auto ya = product(each[0], x, 2, block_rows, in), yb = product(each[1], x, 2, block_rows, in);
      const Source* sources[2] = {&a, &b};
      for (int k = 0; k < 2; ++k) {
        core::PackedArena alone_arena;
        std::vector<std::unique_ptr<core::PackedMatrix>> alone_owner;
        Source alone(block_rows, in, k + 1);
        REQUIRE(alone.w == sources[k]->w);
        const auto y = product(core::WeightPacker(alone_arena, alone_owner).prepare(alone.stored(), in), x, 2,
                               block_rows, in);
        CHECK(y == (k == 0 ? ya : yb));  // a view of the stacked panels multiplies as the block alone
      }
      if (stacks) {
        const auto y = product(stacked, x, 2, 2 * block_rows, in);
        for (int r = 0; r < 2; ++r)
          for (int j = 0; j < block_rows; ++j) {
            CHECK(y[r * 2 * block_rows + j] == ya[r * block_rows + j]);
            CHECK(y[r * 2 * block_rows + block_rows + j] == yb[r * block_rows + j]);
          }
      }
    }
  }
}
