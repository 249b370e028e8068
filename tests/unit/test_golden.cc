// Golden parity with the PyTorch reference (tools/reference.py, fixtures from tools/make_fixtures.py) for
// each fixture model, as golden_parity.h checks it; beam search at several batch sizes.
#include <catch2/catch.hpp>

#include "golden_parity.h"
#include "pipeline/translator.h"
#include "test_support.h"

TEST_CASE("golden parity with the PyTorch reference", "[golden]") {
  for (const std::string name : {"opus", "paper", "gelu-table"}) {
    SECTION(name) {
      const std::string dir = test::fixtures_dir() + "/" + name;
      const pipeline::Translator translator(dir + "/model");
      golden::require_parity(translator, golden::read(dir + "/golden.json"),
                             {translator.defaults(), -1, {1, 3, 32}});
    }
  }
}
