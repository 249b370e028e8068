// `nmt help --markdown` (docs/cli-reference.md): every command, and a row for every translation option of
// the options table with the help text `--help` shows, so the reference cannot leave one out; and each
// command's help says its environment once.
#include <catch2/catch.hpp>
#include <string>

#include "pipeline/option_table.h"
#include "test_support.h"

using Catch::Matchers::Contains;

TEST_CASE("help --markdown lists every command and every option of the table", "[cli_reference]") {
  const auto reference = test::run("'" + test::nmt_binary() + "' help --markdown");
  REQUIRE(reference.exit_code == 0);
  CHECK(reference.err.empty());
  for (const char* command : {"translate", "attention", "info", "convert"}) {
    CHECK_THAT(reference.out, Contains("\n## nmt " + std::string(command) + "\n"));
  }
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    INFO(spec.field);
    CHECK_THAT(reference.out, Contains(pipeline::flag_name(spec)));
    std::string cell;  // the help as a table cell: `|` escaped
    for (const char c : spec.help) cell += c == '|' ? std::string("\\|") : std::string(1, c);
    CHECK_THAT(reference.out, Contains(cell));
  }
}

TEST_CASE("each command's help lists the environment once", "[cli_reference]") {
  for (const char* command : {"translate", "attention", "info"}) {
    INFO(command);
    const auto help = test::run("'" + test::nmt_binary() + "' " + command + " --help");
    REQUIRE(help.exit_code == 0);
    const std::size_t first = help.out.find("Environment:");
    REQUIRE(first != std::string::npos);
    CHECK(help.out.find("Environment:", first + 1) == std::string::npos);
  }
}
