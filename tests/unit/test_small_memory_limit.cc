// Under a small address-space limit, the commands that use no BLAS still end at once: exit-time OpenBLAS
// teardown would wait forever on a worker that cannot get its buffer.
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
