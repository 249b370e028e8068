// The one CPU probe and its NMT_CPU override.
#include <catch2/catch.hpp>
#include <string>

#include "core/cpu.h"
#include "core/error.h"
#include "core/packed_gemm.h"
#include "test_support.h"

namespace {

core::CpuFeatures avx512_vnni_cpu() {
  core::CpuFeatures f;
  f.avx = f.avx2 = f.fma = f.f16c = true;
  f.avx512f = f.avx512bw = f.avx512vl = f.avx512_vnni = true;
  return f;
}

core::CpuFeatures avx2_cpu() {
  core::CpuFeatures f;
  f.avx = f.avx2 = f.fma = f.f16c = true;
  return f;
}

}  // namespace

TEST_CASE("NMT_CPU lowers the level, never raises it", "[cpu]") {
  const core::CpuFeatures big = avx512_vnni_cpu(), small = avx2_cpu(), none;
  CHECK(core::choose_cpu(big, nullptr).isa == core::CpuIsa::kAvx512);
  CHECK_FALSE(core::choose_cpu(big, nullptr).f32_on_blas);
  CHECK(core::choose_cpu(big, "").isa == core::CpuIsa::kAvx512);
  CHECK(core::choose_cpu(big, "avx512").isa == core::CpuIsa::kAvx512);
  CHECK(core::choose_cpu(big, "avx2").isa == core::CpuIsa::kAvx2);
  CHECK_FALSE(core::choose_cpu(big, "avx2").f32_on_blas);
  CHECK(core::choose_cpu(big, "blas").f32_on_blas);
  CHECK(core::choose_cpu(big, "blas").isa == core::CpuIsa::kAvx512);
  CHECK(core::choose_cpu(big, "portable").isa == core::CpuIsa::kPortable);
  CHECK(core::choose_cpu(big, "portable").f32_on_blas);
  CHECK(core::choose_cpu(small, "avx512").isa == core::CpuIsa::kAvx2);
  CHECK(core::choose_cpu(none, nullptr).isa == core::CpuIsa::kPortable);
  CHECK(core::choose_cpu(none, "avx2").isa == core::CpuIsa::kPortable);
  CHECK(core::choose_cpu(none, nullptr).f32_on_blas);
  CHECK_THROWS_AS(core::choose_cpu(big, "sse"), core::UsageError);
  CHECK_THROWS_WITH(core::choose_cpu(big, "AVX2"), "NMT_CPU=AVX2: expected avx512, avx2, blas or portable");
}

TEST_CASE("AVX-512 without BW and VL is the AVX2 level", "[cpu]") {
  core::CpuFeatures f = avx2_cpu();
  f.avx512f = true;
  CHECK(core::choose_cpu(f, nullptr).isa == core::CpuIsa::kAvx2);
}

TEST_CASE("the probe's features are consistent, and the packed kernel follows the choice", "[cpu]") {
  const core::CpuFeatures& f = core::cpu_features();
  if (f.avx2 || f.fma || f.f16c) CHECK(f.avx);
  if (f.avx512bw || f.avx512vl || f.avx512_vnni) CHECK(f.avx512f);
  if (f.amx_int8) CHECK(f.amx_tile);
  const core::CpuChoice& choice = core::cpu_choice();
  const core::PackedIsa expected = choice.f32_on_blas                    ? core::PackedIsa::kNone
                                   : choice.isa == core::CpuIsa::kAvx512 ? core::PackedIsa::kAvx512
                                                                         : core::PackedIsa::kAvx2;
  CHECK(core::packed_isa() == expected);
#if defined(__x86_64__)
  // Built-in cpu probes agree wherever they can say (they do not check the OS's saved state, this does).
  __builtin_cpu_init();
  if (f.avx2) CHECK(__builtin_cpu_supports("avx2"));
  if (f.avx512f) CHECK(__builtin_cpu_supports("avx512f"));
  if (f.avx512_vnni) CHECK(__builtin_cpu_supports("avx512vnni"));
#endif
}

TEST_CASE("an unknown NMT_CPU value is a usage error naming it, every known one translates", "[cpu][cli]") {
  const std::string model = test::fixtures_dir() + "/opus/model";
  const auto bad =
      test::run("NMT_CPU=sse4 '" + test::nmt_binary() + "' translate -m '" + model + "'", "a man\n");
  CHECK(bad.exit_code == 64);
  CHECK(bad.err.find("NMT_CPU=sse4") != std::string::npos);
  const auto own = test::run("'" + test::nmt_binary() + "' translate -m '" + model + "'", "a man\n");
  REQUIRE(own.exit_code == 0);
  for (const char* level : {"avx512", "avx2", "blas", "portable"}) {
    CAPTURE(level);
    const auto forced = test::run(
        std::string("NMT_CPU=") + level + " '" + test::nmt_binary() + "' translate -m '" + model + "'",
        "a man\n");
    CHECK(forced.exit_code == 0);
    CHECK(forced.out == own.out);
  }
}
