// Under a small address-space limit every command ends at once: OpenBLAS, whose threads retry a buffer
// that does not fit forever, loads only for a product and only when its buffer fits (core/blas_library.h).
// tests/stress/run.sh runs the bundled model at 150..400 MB.
#include <catch2/catch.hpp>
#include <string>

#include "test_support.h"

TEST_CASE("help and version end at once under ulimit -v 200 MB", "[cli][hostile]") {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reserves terabytes of address space at start: no program runs under this limit.
  NMT_SKIP_TEST("an AddressSanitizer build cannot start under ulimit -v; the release build runs this test");
#endif
  for (const std::string args : {"--version", "--help", "help", "translate --help", "info --version"}) {
    CAPTURE(args);
    const test::RunResult r =
        test::run("ulimit -v 200000 && exec timeout 20 " + test::nmt_binary() + " " + args);
    REQUIRE(r.exit_code == 0);  // 124: the timeout
    REQUIRE(r.out.find("nmt") != std::string::npos);
  }
}

TEST_CASE("model-loading commands end at once under ulimit -v 200 MB", "[cli][hostile]") {
#if defined(__SANITIZE_ADDRESS__)
  NMT_SKIP_TEST("an AddressSanitizer build cannot start under ulimit -v; the release build runs this test");
#endif
  const std::string model = "'" + test::fixtures_dir() + "/opus/model'";
  for (const std::string& args :
       {"info -m " + model, "translate --threads 1 -q -m " + model,
        "translate --threads 1 -q -m " + model + " -b 1", "attention --format json -m " + model}) {
    for (const std::string cpu : {"", "NMT_CPU=blas "}) {
      CAPTURE(cpu + args);
      const test::RunResult r = test::run(
          "ulimit -v 200000 && " + cpu + "exec timeout 20 " + test::nmt_binary() + " " + args, "A dog.\n");
      CAPTURE(r.err);
      // 0, or 1 saying why; never 124 (the timeout) nor "model unusable"
      CHECK((r.exit_code == 0 ||
             (r.exit_code == 1 && r.err.find("not enough memory (limit 195 MB)") != std::string::npos)));
    }
  }
}
