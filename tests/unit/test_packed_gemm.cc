// The packed kernel against a scalar fma loop (bit for bit), across row counts, odd widths and both ISAs.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/half.h"
#include "core/packed_gemm.h"
#include "core/thread_team.h"
#include "kernel_test_support.h"
#include "test_support.h"

using test::random_values;

namespace {

// What the packed kernel promises: one float fma chain over k in order, then + bias.
std::vector<float> fma_reference(const std::vector<float>& x, int rows, const std::vector<float>& w, int out,
                                 int in, const float* bias) {
  std::vector<float> y(static_cast<size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < out; ++j) {
      float acc = 0.0f;
      for (int i = 0; i < in; ++i) acc = std::fma(x[r * in + i], w[j * in + i], acc);
      y[r * out + j] = acc + (bias ? bias[j] : 0.0f);
    }
  return y;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Runs body once per packed kernel this CPU has (AVX-512, then AVX2), then restores the CPU's own choice.
template <class Body>
void for_each_packed_isa(const Body& body) {
  test::PackedIsaGuard guard;
  for (core::PackedIsa isa : {core::PackedIsa::kAvx512, core::PackedIsa::kAvx2}) {
    core::force_packed_isa(isa);
    if (core::packed_isa() != core::PackedIsa::kNone) body();
  }
}

}  // namespace

TEST_CASE("packed_linear equals a scalar fma chain, bit for bit", "[kernels][packed]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  for_each_packed_isa([&] {
    for (int rows :
         {1, 2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 20, 23, 64, 130, 132}) {  // every AVX-512 tile height
      for (int out : {1, 15, 16, 17, 33, 48, 100, 1025}) {              // 1025: rows interleaved (AVX-512)
        // 1024: many column blocks (the next one prefetched), and 132 rows in two passes
        for (int in : {1, 3, 16, 37, 1024}) {
          if ((in == 1024) != (out == 1025 && (rows == 5 || rows == 12 || rows == 132))) continue;
          CAPTURE(static_cast<int>(core::packed_isa()), rows, out, in);
          const auto x = random_values(static_cast<size_t>(rows) * in, 1);
          const auto w = random_values(static_cast<size_t>(out) * in, 2);
          const auto bias = random_values(out, 3);
          const core::PackedMatrix packed(w.data(), out, in);
          for (const float* b : {static_cast<const float*>(nullptr), bias.data()}) {
            std::vector<float> y(static_cast<size_t>(rows) * out + 1, 7.0f);  // one guard value past the end
            core::packed_linear(x.data(), rows, packed, b, y.data());
            REQUIRE(y.back() == 7.0f);
            y.pop_back();
            REQUIRE(same_bits(y, fma_reference(x, rows, w, out, in, b)));
          }
        }
      }
    }
  });
}

TEST_CASE("packed_linear: a row's result does not depend on the other rows or on the ISA",
          "[kernels][packed]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  test::PackedIsaGuard guard;
  const int rows = 37, out = 8000 % 999, in = 256;  // enough rows for several tiles; ragged width
  const auto x = random_values(static_cast<size_t>(rows) * in, 4);
  const auto w = random_values(static_cast<size_t>(out) * in, 5);
  const auto bias = random_values(out, 6);
  const core::PackedMatrix packed(w.data(), out, in);
  std::vector<float> all(static_cast<size_t>(rows) * out);
  core::packed_linear(x.data(), rows, packed, bias.data(), all.data());
  for (int r : {0, 7, 8, 36}) {
    std::vector<float> alone(out);
    core::packed_linear(x.data() + static_cast<size_t>(r) * in, 1, packed, bias.data(), alone.data());
    REQUIRE(std::memcmp(alone.data(), all.data() + static_cast<size_t>(r) * out, out * sizeof(float)) == 0);
  }
  core::force_packed_isa(core::PackedIsa::kAvx2);
  std::vector<float> narrow(all.size());
  core::packed_linear(x.data(), rows, packed, bias.data(), narrow.data());
  REQUIRE(same_bits(all, narrow));
}

TEST_CASE("packed_linear with its columns split over a thread team equals one thread, bit for bit",
          "[kernels][packed][threads]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  for_each_packed_isa([&] {
    for (int rows : {1, 13, 132}) {
      for (int out : {17, 100, 1025, 4099}) {  // 1025 and up: rows interleaved once, shared by the team
        for (int in : {37, 512, 2048}) {       // 2048: rows interleaved for depth, and in passes
          CAPTURE(static_cast<int>(core::packed_isa()), rows, out, in);
          const auto x = random_values(static_cast<size_t>(rows) * in, 7);
          const auto w = random_values(static_cast<size_t>(out) * in, 8);
          const auto bias = random_values(out, 9);
          const core::PackedMatrix packed(w.data(), out, in);
          std::vector<float> alone(static_cast<size_t>(rows) * out), shared(alone.size());
          core::packed_linear(x.data(), rows, packed, bias.data(), alone.data());
          {
            core::ThreadTeam team(3);
            core::packed_linear(x.data(), rows, packed, bias.data(), shared.data());
          }
          REQUIRE(same_bits(alone, shared));
        }
      }
    }
  });
}

TEST_CASE("a stacked PackedMatrix equals its blocks packed apart, and its column views equal each block",
          "[kernels][packed]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  const int d = 48, in = 40, rows = 13;  // three [d, in] blocks, like q, k and v
  const auto x = random_values(static_cast<size_t>(rows) * in, 10);
  std::vector<std::vector<float>> w;
  for (int i = 0; i < 3; ++i) w.push_back(random_values(static_cast<size_t>(d) * in, 11 + i));
  std::vector<uint16_t> w1_f16;
  for (float v : w[1]) w1_f16.push_back(core::float_to_half(v));
  const core::PackedMatrix stacked(
      {{w[0].data(), false, d}, {w1_f16.data(), true, d}, {w[2].data(), false, d}}, in);
  REQUIRE(stacked.out() == 3 * d);
  std::vector<float> all(static_cast<size_t>(rows) * 3 * d);
  core::packed_linear(x.data(), rows, stacked, nullptr, all.data());
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    const core::PackedMatrix apart =
        i == 1 ? core::PackedMatrix(w1_f16.data(), d, in) : core::PackedMatrix(w[i].data(), d, in);
    const core::PackedMatrix view = stacked.columns(i * d, d);
    std::vector<float> y_apart(static_cast<size_t>(rows) * d), y_view(y_apart.size());
    core::packed_linear(x.data(), rows, apart, nullptr, y_apart.data());
    core::packed_linear(x.data(), rows, view, nullptr, y_view.data());
    REQUIRE(same_bits(y_apart, y_view));
    for (int r = 0; r < rows; ++r) {
      REQUIRE(std::memcmp(&all[(static_cast<size_t>(r) * 3 + i) * d], &y_apart[static_cast<size_t>(r) * d],
                          d * sizeof(float)) == 0);
    }
  }
  REQUIRE_THROWS_AS(stacked.columns(8, d), std::invalid_argument);          // not on a panel boundary
  REQUIRE_THROWS_AS(stacked.columns(2 * d, d + 1), std::invalid_argument);  // past the end
}

TEST_CASE("PackedMatrix::copy_row gives back W's rows (the tied embedding's lookups)", "[kernels][packed]") {
  const int out = 37, in = 24;  // a partial last panel
  const auto w = random_values(static_cast<size_t>(out) * in, 7);
  const core::PackedMatrix packed(w.data(), out, in);
  std::vector<float> row(in);
  for (int j = 0; j < out; ++j) {
    packed.copy_row(j, row.data());
    CHECK(same_bits(row, std::vector<float>(w.begin() + j * in, w.begin() + (j + 1) * in)));
  }
}

namespace {

std::vector<uint16_t> to_half(const std::vector<float>& v) {
  std::vector<uint16_t> h;
  for (float x : v) h.push_back(core::float_to_half(x));
  return h;
}

std::vector<float> from_half(const std::vector<uint16_t>& h) {
  std::vector<float> v(h.size());
  core::half_to_float(h.data(), v.data(), v.size());
  return v;
}

}  // namespace

TEST_CASE("f16 panels give the same bits as f32 panels of the same values", "[kernels][packed]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  for_each_packed_isa([&] {
    // 1025 columns or 2048 deep: rows interleaved (AVX-512); 4099: many column blocks, prefetched
    for (auto [rows, out, in] : {std::array<int, 3>{1, 1, 1},
                                 {5, 17, 3},
                                 {12, 48, 37},
                                 {13, 100, 256},
                                 {132, 1025, 64},
                                 {20, 64, 2048},
                                 {7, 4099, 40}}) {
      CAPTURE(static_cast<int>(core::packed_isa()), rows, out, in);
      const auto x = random_values(static_cast<size_t>(rows) * in, 21);
      const auto half = to_half(random_values(static_cast<size_t>(out) * in, 22));
      const auto widened = from_half(half);
      const auto bias = random_values(out, 23);
      const core::PackedMatrix f16(half.data(), out, in), f32(widened.data(), out, in);
      REQUIRE(f16.f16());
      REQUIRE(!f32.f16());
      REQUIRE(f16.bytes() * 2 == f32.bytes());
      std::vector<float> y16(static_cast<size_t>(rows) * out), y32(y16.size());
      core::packed_linear(x.data(), rows, f16, bias.data(), y16.data());
      core::packed_linear(x.data(), rows, f32, bias.data(), y32.data());
      REQUIRE(same_bits(y16, y32));
      REQUIRE(same_bits(y16, fma_reference(x, rows, widened, out, in, bias.data())));
      {
        core::ThreadTeam team(2);
        std::fill(y16.begin(), y16.end(), 0.0f);
        core::packed_linear(x.data(), rows, f16, bias.data(), y16.data());
      }
      REQUIRE(same_bits(y16, y32));
      std::vector<float> row(in);
      for (int j : {0, out / 2, out - 1}) {
        f16.copy_row(j, row.data());
        CHECK(same_bits(row, std::vector<float>(widened.begin() + static_cast<size_t>(j) * in,
                                                widened.begin() + static_cast<size_t>(j + 1) * in)));
      }
    }
  });
}

TEST_CASE("a PackedMatrix packed in pieces equals one packed whole, mixed blocks make f32 panels",
          "[kernels][packed]") {
  if (core::packed_isa() == core::PackedIsa::kNone) SUCCEED("no packed kernel on this CPU: BLAS path only");
  const int out = 37, in = 24, rows = 9;
  const auto x = random_values(static_cast<size_t>(rows) * in, 31);
  const auto half = to_half(random_values(static_cast<size_t>(out) * in, 32));
  const core::PackedMatrix whole(half.data(), out, in);
  core::PackedMatrix pieces(out, in, core::PackedMatrix::Panels::kF16);
  for (int first : {30, 0, 11}) {  // any order, any sizes
    const int n = first == 30 ? 7 : (first == 0 ? 11 : 19);
    pieces.pack_rows(first, n, half.data() + static_cast<size_t>(first) * in, true);
  }
  std::vector<float> a(static_cast<size_t>(rows) * out), b(a.size());
  core::packed_linear(x.data(), rows, whole, nullptr, a.data());
  core::packed_linear(x.data(), rows, pieces, nullptr, b.data());
  REQUIRE(same_bits(a, b));
  const auto f32 = random_values(static_cast<size_t>(out) * in, 33);
  REQUIRE_THROWS_AS(pieces.pack_rows(0, 1, f32.data(), false), std::invalid_argument);   // f32 into f16
  REQUIRE_THROWS_AS(pieces.pack_rows(30, 8, half.data(), true), std::invalid_argument);  // past the end
  const core::PackedMatrix all_half({{half.data(), true, out}, {half.data(), true, out}}, in);
  const core::PackedMatrix mixed({{half.data(), true, out}, {f32.data(), false, out}}, in);
  REQUIRE(all_half.f16());
  REQUIRE(!mixed.f16());
}
