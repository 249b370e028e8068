// The one options table: every output-changing option keys the resume manifest, every command taking -m
// takes it alike, and the flags it registers read, refuse and explain values the same way everywhere.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli/translate_command_options.h"
#include "front/output_options_key.h"
#include "front/translate_flags.h"
#include "pipeline/option_table.h"
#include "pipeline/option_text.h"
#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate() { return nmt() + " translate -m '" + model() + "' --threads 1"; }
std::string q(const std::string& path) { return "'" + path + "'"; }

// A value of the spec's type, valid, and different from `current`.
pipeline::OptionValue another_value(const pipeline::OptionSpec& spec, const pipeline::OptionValue& current) {
  switch (spec.type) {
    case pipeline::OptionType::kFlag:
      return !std::get<bool>(current);
    case pipeline::OptionType::kText:
      if (!spec.choices.empty()) {  // another of the choices
        const std::string_view choices = spec.choices;
        const std::string first(choices.substr(0, choices.find('|')));
        const size_t bar = choices.find('|') + 1;
        const std::string second(choices.substr(bar, choices.find('|', bar) - bar));
        return pipeline::OptionValue(std::get<std::string>(current) == first ? second : first);
      }
      return std::get<std::string>(current) + "x";
    case pipeline::OptionType::kInt: {
      const int64_t v = static_cast<int64_t>(spec.lo) + 1;
      return std::get<int64_t>(current) == v ? pipeline::OptionValue(v + 1) : pipeline::OptionValue(v);
    }
    case pipeline::OptionType::kNumber:
      break;
  }
  const double v = spec.lo + (spec.hi - spec.lo) / 3;
  return std::get<double>(current) == v ? pipeline::OptionValue(v / 2) : pipeline::OptionValue(v);
}

}  // namespace

namespace {
std::string key_of(const cli::TranslateCommandOptions& o) {
  return front::output_options_key(o.translate, cli::output_shape(o));
}
// A row's value in the command's options: the translator's, or the front end's.
pipeline::OptionValue value_of(const pipeline::OptionSpec& spec, const cli::TranslateCommandOptions& o) {
  return spec.get != nullptr ? spec.get(o.translate) : spec.get_front(o.front);
}
void set_value(const pipeline::OptionSpec& spec, cli::TranslateCommandOptions& o,
               const pipeline::OptionValue& value) {
  if (spec.set != nullptr) {
    spec.set(o.translate, value);
  } else {
    spec.set_front(o.front, value);
  }
}
}  // namespace

TEST_CASE("every output-changing option of the table keys the resume manifest", "[options]") {
  cli::TranslateCommandOptions base;
  base.translate.sampling.enabled = true;  // so that every option applies
  base.translate.alignment = true;
  const std::string key = key_of(base);
  int output_changing = 0;
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    CAPTURE(spec.field);
    cli::TranslateCommandOptions changed = base;
    const pipeline::OptionValue value = another_value(spec, value_of(spec, base));
    REQUIRE(pipeline::range_error(spec, value).empty());
    set_value(spec, changed, value);
    changed.translate.sampling.enabled = base.translate.sampling.enabled;
    REQUIRE(value_of(spec, changed) != value_of(spec, base));
    CHECK((key_of(changed) != key) == spec.changes_output);
    output_changing += spec.changes_output;
  }
  CHECK(output_changing >= 16);
  for (auto change : {+[](cli::TranslateCommandOptions& o) { o.scores = true; },
                      +[](cli::TranslateCommandOptions& o) { o.input_format = cli::TextFormat::kJsonl; },
                      +[](cli::TranslateCommandOptions& o) { o.output_format = cli::TextFormat::kJsonl; },
                      +[](cli::TranslateCommandOptions& o) { o.translate.sampling.enabled = false; }}) {
    cli::TranslateCommandOptions changed = base;
    change(changed);
    CHECK(key_of(changed) != key);
  }
}

TEST_CASE("the table: names, ranges and defaults read as help shows them", "[options]") {
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    CAPTURE(spec.field);
    CHECK_THAT(front::describe_option_error(pipeline::OptionError(std::string(spec.field), "x")),
               StartsWith("--"));
    // A translator's row or a front end's: one pair of accessors, whole.
    CHECK((spec.get != nullptr) == (spec.set != nullptr));
    CHECK((spec.get_front != nullptr) == (spec.set_front != nullptr));
    CHECK((spec.get != nullptr) != (spec.get_front != nullptr));
    if (spec.type == pipeline::OptionType::kInt || spec.type == pipeline::OptionType::kNumber) {
      CHECK(spec.lo < spec.hi);
      CHECK(pipeline::range_text(spec).size() < 20);
      if (spec.default_from == pipeline::DefaultFrom::kFixed && spec.field != "sampling.seed" && spec.get)
        CHECK(pipeline::range_error(spec, spec.get(pipeline::TranslateOptions{})).empty());
    }
  }
  CHECK(pipeline::range_text(pipeline::option_spec("sampling.seed")) == "0..2^63-1");
  CHECK(pipeline::range_text(pipeline::option_spec("sampling.top_p")) == "above 0 up to 1");
}

TEST_CASE("resume retranslates when --no-split, --source-lang or --max-sentence-tokens change",
          "[options][cli]") {
  test::TempDir dir;
  const std::string src = dir.file("src"), dst = dir.file("dst");
  fs::create_directories(src);
  test::write_file(src + "/a.txt", "the man walks. the dog runs.\n");
  const std::string cmd = translate() + " --input-dir " + q(src) + " --output-dir " + q(dst);
  REQUIRE(test::run(cmd).exit_code == 0);
  for (const std::string flags : {" --no-split", " --source-lang fr", " --max-sentence-tokens 9"}) {
    CAPTURE(flags);
    auto r = test::run(cmd + flags);
    CHECK_THAT(r.err, Contains("1 retranslated (stale)"));
    r = test::run(cmd + flags);
    CHECK_THAT(r.err, Contains("1 already done"));
    r = test::run(cmd);
    CHECK_THAT(r.err, Contains("1 retranslated (stale)"));
  }
  CHECK(test::read_file(dst + "/a.txt") == test::run(translate(), "the man walks. the dog runs.\n").out);
}

TEST_CASE("every command that takes -m takes $NMT_MODEL like translate", "[options][cli]") {
  int commands = 0;
  for (const std::string command : {"translate", "attention", "info", "convert"}) {
    CAPTURE(command);
    if (test::run(nmt() + " " + command + " --help").out.find("-m,--model") == std::string::npos) continue;
    ++commands;
    const std::string args = command == "info" ? "" : " 'a dog'";
    const auto good = test::run("NMT_MODEL='" + model() + "' " + nmt() + " " + command + args);
    CHECK(good.exit_code == 0);
    const auto missing = test::run("NMT_MODEL=/no/such/model " + nmt() + " " + command + args);
    CHECK(missing.exit_code != 0);
    CHECK_THAT(missing.err, Contains("/no/such/model"));
    const auto given =
        test::run("NMT_MODEL=/no/such/model " + nmt() + " " + command + " -m '" + model() + "'" + args);
    CHECK(given.exit_code == 0);
  }
  CHECK(commands == 3);
}

TEST_CASE("one parser reads a value typed on the command line or in a /v1 query", "[options]") {
  const pipeline::OptionSpec& beam = pipeline::option_spec("beam_size");
  const pipeline::OptionSpec& alpha = pipeline::option_spec("length_penalty");
  const pipeline::OptionSpec& alignment = pipeline::option_spec("alignment");
  CHECK(std::get<int64_t>(*pipeline::parse_option_text(beam, "4")) == 4);
  CHECK(std::get<double>(*pipeline::parse_option_text(alpha, "0.5")) == 0.5);
  CHECK(std::get<bool>(*pipeline::parse_option_text(alignment, "true")));
  CHECK_FALSE(std::get<bool>(*pipeline::parse_option_text(alignment, "0")));
  // Blanks, trailing characters and other flag words read as nothing, whichever front end typed them.
  for (const std::string text : {"", " 4", "4 ", "\t4", "4x", "0x4", "4.0"})
    CHECK_FALSE(pipeline::parse_option_text(beam, text).has_value());
  for (const std::string text : {" 0.5", "0.5 ", "0,5", ""})
    CHECK_FALSE(pipeline::parse_option_text(alpha, text).has_value());
  for (const std::string text : {"yes", "TRUE", " 1", ""})
    CHECK_FALSE(pipeline::parse_option_text(alignment, text).has_value());
  // Out of range is still a number: range_error names the rule.
  CHECK_THAT(pipeline::range_error(beam, *pipeline::parse_option_text(beam, "0")), StartsWith("must be"));
  CHECK_THAT(pipeline::range_error(alpha, *pipeline::parse_option_text(alpha, "1e999")),
             StartsWith("must be"));
}
