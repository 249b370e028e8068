// End-to-end: `nmt translate --output-format jsonl` on the checked-in fixture model.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/exit_codes.h"
#include "test_support.h"

namespace {

std::string translate() {
  return "'" + test::nmt_binary() + "' translate -m '" + test::fixtures_dir() + "/opus/model' --threads 1";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const char* kInput = "the man is walking\n\na small dog. Two people sit on a bench.\nlast one here\n";

}  // namespace

TEST_CASE("jsonl output: one object per line whose text is the plain output", "[cli][jsonl]") {
  const auto plain = test::run(translate() + " -b 3", kInput);
  const auto jsonl = test::run(translate() + " -b 3 --output-format jsonl", kInput);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(jsonl.exit_code == 0);
  const auto texts = lines_of(plain.out), objects = lines_of(jsonl.out);
  REQUIRE(objects.size() == texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto j = nlohmann::json::parse(objects[i]);
    CHECK(j.at("text") == texts[i]);
    CHECK(j.at("score").is_number());
    CHECK(j.at("tokens").is_array());
    CHECK(j.at("tokens").empty() == texts[i].empty());
    CHECK(j.at("nbest").is_null());
  }
  // Scores equal --scores' (printed with 6 decimals there).
  const auto scored = lines_of(test::run(translate() + " -b 3 --scores", kInput).out);
  CHECK(nlohmann::json::parse(objects[0]).at("score").get<double>() ==
        Approx(std::stod(scored[0].substr(0, scored[0].find('\t')))).margin(1e-6));
}

TEST_CASE("jsonl output with --n-best: an nbest list per line, its first the best", "[cli][jsonl]") {
  const auto text = test::run(translate() + " -b 3 --n-best 3", kInput);
  const auto jsonl = test::run(translate() + " -b 3 --n-best 3 --output-format jsonl", kInput);
  REQUIRE(jsonl.exit_code == 0);
  const auto objects = lines_of(jsonl.out);
  REQUIRE(objects.size() == 4);
  const auto first = nlohmann::json::parse(objects[0]);
  REQUIRE(first.at("nbest").size() == 3);
  CHECK(first.at("nbest")[0].at("text") == first.at("text"));
  CHECK(first.at("nbest")[0].at("tokens") == first.at("tokens"));
  // The same hypotheses as Marian's n-best text format.
  const auto text_lines = lines_of(text.out);
  REQUIRE(text_lines.size() >= 3);
  for (size_t k = 0; k < 3; ++k) {
    const std::string& line = text_lines[k];
    const size_t begin = line.find(" ||| ") + 5;
    CHECK(first.at("nbest")[k].at("text") == line.substr(begin, line.find(" ||| ", begin) - begin));
  }
}

TEST_CASE("jsonl output: --scores changes nothing (every object has its score)", "[cli][jsonl]") {
  const auto jsonl = test::run(translate() + " --output-format jsonl", kInput);
  const auto scored = test::run(translate() + " --output-format jsonl --scores", kInput);
  REQUIRE(jsonl.exit_code == 0);
  CHECK(scored.out == jsonl.out);
}

TEST_CASE("jsonl output: an unknown format is a usage error", "[cli][jsonl]") {
  for (const char* flags : {" --output-format xml", " --input-format csv"}) {
    INFO(flags);
    const auto r = test::run(translate() + flags, "a dog\n");
    CHECK(r.exit_code == cli::kExitUsage);
    CHECK(r.out.empty());
  }
}

TEST_CASE("jsonl output: line endings and an unterminated last line kept", "[cli][jsonl]") {
  const auto r = test::run(translate() + " --output-format jsonl", "a dog\r\nthe man");
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.find("}\r\n{") != std::string::npos);
  CHECK(r.out.back() == '}');
}
