// Hostile model directories and process state: FIFOs, directories and devices in place of model files,
// oversized descriptions, closed standard descriptors, terminal escapes in model data. Each case: a
// one-line error naming the file, exit code 2, no hang.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/printable.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string fixture_model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate(const std::string& m) {
  return "timeout 20 " + nmt() + " translate -m '" + m + "' --threads 1";
}
size_t count_lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

std::string copy_model(const test::TempDir& dir) {
  const std::string dst = dir.file("model");
  fs::copy(fixture_model(), dst);
  return dst;
}

}  // namespace

TEST_CASE("a FIFO, directory or device in place of a model file is refused at once, exit 2", "[hostile]") {
  for (const char* file : {"model.json", "weights.bin", "source.spm", "target.spm", "vocab.json"}) {
    for (const std::string kind : {"FIFO", "directory", "character device"}) {
      test::TempDir dir;
      const std::string m = copy_model(dir);
      const std::string path = m + "/" + file;
      fs::remove(path);
      if (kind == "FIFO") REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
      if (kind == "directory") fs::create_directory(path);
      if (kind == "character device") {
        // A private node with /dev/zero's numbers, reached through a symlink: never read forever.
        const std::string node = dir.file("zero");
        REQUIRE(::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0);
        fs::create_symlink(node, path);
      }
      const auto r = test::run(translate(m), "hello\n");
      INFO(file << " as " << kind << ": " << r.err);
      REQUIRE(r.exit_code == 2);
      REQUIRE_THAT(r.err, Contains(path + ": "));
      REQUIRE_THAT(r.err, Contains("is a " + kind + ", not a regular file"));
      REQUIRE(count_lines(r.err) == 1);
      REQUIRE(r.out.empty());
    }
  }
}

TEST_CASE("model.json larger than its cap is refused before parsing", "[hostile]") {
  test::TempDir dir;
  const std::string m = copy_model(dir);
  std::string numbers = "[";
  numbers.reserve(17u << 20);
  while (numbers.size() < (17u << 20)) numbers += "1,";
  numbers += "1]";
  test::write_file(m + "/model.json", numbers);
  const auto r = test::run(translate(m), "hello\n");  // the memory bound itself: make stress
  INFO(r.err);
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.err, Contains(m + "/model.json: model description is larger than the 16 MiB limit"));
}

TEST_CASE("a vocabulary or SentencePiece model over its cap is refused", "[hostile]") {
  for (const char* file : {"vocab.json", "source.spm"}) {
    test::TempDir dir;
    const std::string m = copy_model(dir);
    fs::resize_file(m + "/" + file, uint64_t{65} << 20);  // sparse: no disk used
    const auto r = test::run(translate(m), "hello\n");
    INFO(r.err);
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.err, Contains(m + "/" + file + ": "));
    REQUIRE_THAT(r.err, Contains("MiB limit"));
  }
}

TEST_CASE("closed standard descriptors never take a model file's number", "[hostile]") {
  // With stdin closed the weights would be opened as descriptor 0 and translated as text.
  const auto r = test::run(translate(fixture_model()) + " <&-");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.empty());
  // With stdout closed the translation has nowhere to go: an error, not output lost in /dev/null.
  const auto no_stdout = test::run(translate(fixture_model()) + " >&-", "hello\n");
  REQUIRE(no_stdout.exit_code == 1);
  REQUIRE(no_stdout.err == "nmt: error: <stdout>: is closed: the output has nowhere to go\n");
}

TEST_CASE("terminal escapes and bad bytes in model data are printed escaped", "[hostile]") {
  CHECK(core::printable("a\x1b]0;title\x07z") == "a\\x1b]0;title\\x07z");
  CHECK(core::printable("csi \xc2\x9b"
                        "31m") == "csi \\xc2\\x9b31m");  // U+009B, a C1 CSI
  CHECK(core::printable("caf\xc3\xa9 \xff") == "caf\xc3\xa9 \\xff");
  CHECK(std::string(core::Error("x\ny").what()) == "x\\x0ay");

  test::TempDir dir;
  const std::string m = copy_model(dir);
  auto j = nlohmann::json::parse(test::read_file(m + "/model.json"));
  j["tokenizer"]["source_spm"] = "evil\x1b[31mred.spm";
  test::write_file(m + "/model.json", j.dump());
  const auto r = test::run(translate(m), "hello\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 2);
  REQUIRE(r.err.find('\x1b') == std::string::npos);
  REQUIRE_THAT(r.err, Contains("evil\\x1b[31mred"));

  const std::string escaped_dir = dir.file("m\x1b[2Jx");
  const auto missing = test::run(translate(escaped_dir), "hello\n");
  REQUIRE(missing.exit_code == 2);
  REQUIRE(missing.err.find('\x1b') == std::string::npos);
  REQUIRE_THAT(missing.err, Contains("m\\x1b[2Jx"));
}

TEST_CASE("each bad tokenizer field is reported under its own name", "[hostile]") {
  test::TempDir dir;
  const std::string m = copy_model(dir);
  const std::string json = test::read_file(m + "/model.json");
  for (const char* field : {"source_spm", "target_spm", "source_vocab", "target_vocab"}) {
    for (const char* value : {"../x", "sub/x", ".", ""}) {
      if (std::string(value).empty() && std::string(field).find("vocab") != std::string::npos) continue;
      CAPTURE(field, value);
      auto j = nlohmann::json::parse(json);
      j["tokenizer"][field] = value;
      test::write_file(m + "/model.json", j.dump());
      const auto r = test::run(translate(m), "hello\n");
      CHECK(r.exit_code == 2);
      CHECK(count_lines(r.err) == 1);
      CHECK_THAT(r.err, Contains(std::string("model.json: tokenizer.") + field + ": "));
    }
  }
}
