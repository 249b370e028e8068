// Converter refusals that point at an option: the library names the option by its ConvertOptions /
// MarianFiles field (or the converter), never a command-line flag; `nmt convert` shows the flag.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/convert/convert_error.h"
#include "models/convert/convert_hf_marian.h"
#include "models/convert/convert_marian_npz.h"
#include "models/model_error.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

std::string hf_dir() { return test::fixtures_dir() + "/opus/hf"; }
std::string marian_dir() { return test::fixtures_dir() + "/opus/marian"; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

models::ConvertOptions to(const std::string& dir) {
  models::ConvertOptions o;
  o.output_dir = dir;
  return o;
}

std::string copy_of(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive);
  return to;
}

// The message of the error `convert` throws, checked to be of type E.
template <typename E>
std::string refusal(const std::function<void()>& convert) {
  try {
    convert();
  } catch (const E& e) {
    return e.what();
  }
  FAIL("no refusal");
  return "";
}

}  // namespace

TEST_CASE("converter refusals name options by field, never by flag", "[convert]") {
  test::TempDir tmp;
  const std::string marian = copy_of(marian_dir(), tmp.file("marian"));
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  test::write_file(out + "/x", "x");
  test::write_file(tmp.file("file"), "x");
  models::MarianFiles spm_vocab;
  spm_vocab.source_vocab = spm_vocab.target_vocab = marian + "/source.spm";
  spm_vocab.target_spm = marian + "/target.spm";
  const std::string bare = copy_of(marian_dir(), tmp.file("bare"));
  fs::remove(bare + "/decoder.yml");
  const std::string two_npz = copy_of(bare, tmp.file("two"));
  fs::copy_file(two_npz + "/model.npz", two_npz + "/other.npz");
  models::MarianFiles vocab;
  vocab.source_vocab = vocab.target_vocab = two_npz + "/vocab.yml";
  const std::string hf_with_npz = copy_of(marian_dir(), tmp.file("hf_npz"));

  const std::vector<std::pair<std::string, std::string>> messages = {
      {refusal<core::UsageError>([&] { models::convert_hf_marian(hf_dir(), to(out)); }),
       "output_dir " + out + ": directory is not empty (use force to replace the model in it)"},
      {refusal<core::UsageError>([&] { models::convert_hf_marian(hf_dir(), to(tmp.file("file"))); }),
       "output_dir " + tmp.file("file") + ": exists and is not a directory"},
      {refusal<core::UsageError>([&] { models::convert_hf_marian(hf_dir(), to("")); }),
       "convert: output_dir is required"},
      {refusal<core::UsageError>([&] { models::convert_marian_npz(two_npz, vocab, to(tmp.file("a"))); }),
       "choose one with npz"},
      {refusal<core::UsageError>([&] { models::convert_marian_npz(bare, {}, to(tmp.file("b"))); }),
       "no decoder.yml: name the vocabularies with source_vocab/target_vocab"},
      {refusal<core::UsageError>([&] { models::convert_marian_npz(marian, spm_vocab, to(tmp.file("c"))); }),
       "so it also segments: drop target_spm"},
      {refusal<models::ModelError>([&] { models::convert_hf_marian(hf_with_npz, to(tmp.file("d"))); }),
       "config.json: missing (an .npz is there: for a native Marian release use convert_marian_npz)"},
      {refusal<models::ModelError>([&] { models::convert_marian_npz(hf_dir(), {}, to(tmp.file("e"))); }),
       "no *.npz or Marian .bin model file (config.json is there: for a Hugging Face model use "
       "convert_hf_marian)"},
  };
  for (const auto& [message, expected] : messages) {
    INFO(message);
    CHECK(contains(message, expected));
    CHECK(!contains(message, "--"));
    CHECK(!contains(message, "-o "));
  }
}

TEST_CASE("render_option_message puts the caller's names in the option slots", "[convert]") {
  const models::OptionMessage parts = {"use ", "force", " or ", "npz", ""};
  CHECK(models::render_option_message(parts, [](const std::string& o) { return "<" + o + ">"; }) ==
        "use <force> or <npz>");
  CHECK(std::string(models::ConvertUsageError(parts).what()) == "use force or npz");
}

TEST_CASE("nmt convert shows the flags for the options the converter names", "[convert]") {
  test::TempDir tmp;
  const std::string nmt = test::nmt_binary();
  const std::string bare = copy_of(marian_dir(), tmp.file("bare"));
  fs::remove(bare + "/decoder.yml");
  const std::string two_npz = copy_of(bare, tmp.file("two"));
  fs::copy_file(two_npz + "/model.npz", two_npz + "/other.npz");
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  test::write_file(out + "/x", "x");
  auto convert = [&](const std::string& from, const std::string& dir, const std::string& extra) {
    return test::run(nmt + " convert --from " + from + " '" + dir + "' -o '" + tmp.file("o") + "'" + extra);
  };

  const auto not_empty = test::run(nmt + " convert --from hf-marian '" + hf_dir() + "' -o '" + out + "'");
  CHECK(not_empty.exit_code == 64);
  CHECK(contains(not_empty.err,
                 "-o " + out + ": directory is not empty (use --force to replace the model in it)"));
  const auto several = convert("marian-npz", two_npz, " --vocab '" + two_npz + "/vocab.yml'");
  CHECK(several.exit_code == 64);
  CHECK(contains(several.err, ", ...): choose one with --npz;"));
  const auto no_vocab = convert("marian-npz", bare, "");
  CHECK(no_vocab.exit_code == 64);
  CHECK(contains(no_vocab.err,
                 "no decoder.yml: name the vocabularies with --vocab or --source-vocab/--target-vocab"));
  const auto spm = convert("marian-npz", bare,
                           " --vocab '" + bare + "/source.spm' --source-spm '" + bare + "/target.spm'");
  CHECK(spm.exit_code == 64);
  CHECK(contains(spm.err, "so it also segments: drop --source-spm;"));
  const auto wrong = convert("marian-npz", hf_dir(), "");
  CHECK(wrong.exit_code == 2);
  CHECK(contains(wrong.err, "(config.json is there: for a Hugging Face model use --from hf-marian)"));
  CHECK(!fs::exists(tmp.file("o")));
}

TEST_CASE("nmt convert tells the layout from the source's files when --from is left out", "[convert]") {
  test::TempDir tmp;
  const std::string nmt = test::nmt_binary();
  const auto hf = test::run(nmt + " convert '" + hf_dir() + "' -o '" + tmp.file("hf") + "'");
  CHECK(hf.exit_code == 0);
  CHECK(fs::exists(tmp.file("hf") + "/model.json"));
  const auto marian = test::run(nmt + " convert '" + marian_dir() + "' -o '" + tmp.file("marian") + "'");
  CHECK(marian.exit_code == 0);
  CHECK(fs::exists(tmp.file("marian") + "/model.json"));
  const auto ours =
      test::run(nmt + " convert '" + tmp.file("hf") + "' -o '" + tmp.file("again") + "' --dtype f16");
  CHECK(ours.exit_code == 0);
  CHECK(fs::exists(tmp.file("again") + "/model.json"));
  // Nothing to tell it by: the message says what was looked for and how to say it.
  fs::create_directories(tmp.file("empty"));
  const auto empty = test::run(nmt + " convert '" + tmp.file("empty") + "' -o '" + tmp.file("none") + "'");
  CHECK(empty.exit_code == 64);
  CHECK(contains(empty.err, "no model.json, config.json, *.npz or Marian .bin in it; give --from"));
  CHECK(!fs::exists(tmp.file("none")));
}
