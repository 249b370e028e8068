// End-to-end: `nmt translate --alignment` on the bundled model (text, --n-best, --scores, jsonl, segments).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/exit_codes.h"
#include "test_support.h"

namespace {

std::string translate() {
  return "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
         "/multi30k-en-de' --threads 1 -b 3";
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, by);) {
    if (by != ' ' || !part.empty()) parts.push_back(part);
  }
  return parts;
}

struct Pair {
  int source, target;
  bool operator==(const Pair& o) const { return source == o.source && target == o.target; }
};

std::vector<Pair> parse_pairs(const std::string& pairs) {
  std::vector<Pair> out;
  for (const std::string& p : split(pairs, ' ')) {
    const size_t dash = p.find('-');
    REQUIRE(dash != std::string::npos);
    out.push_back({std::stoi(p.substr(0, dash)), std::stoi(p.substr(dash + 1))});
  }
  return out;
}

// "text ||| pairs" -> text and pairs; the pairs must be in range and link every target word once.
std::pair<std::string, std::vector<Pair>> parse_aligned(const std::string& line, const std::string& source) {
  const size_t bar = line.rfind(" ||| ");
  REQUIRE(bar != std::string::npos);
  const std::string text = line.substr(0, bar);
  const std::vector<Pair> pairs = parse_pairs(line.substr(bar + 5));
  const int n_source = static_cast<int>(split(source, ' ').size());
  const int n_target = static_cast<int>(split(text, ' ').size());
  std::vector<int> seen(n_target, 0);
  for (const Pair& p : pairs) {
    REQUIRE(p.source >= 0);
    REQUIRE(p.source < n_source);
    REQUIRE(p.target >= 0);
    REQUIRE(p.target < n_target);
    ++seen[p.target];
  }
  CHECK(seen == std::vector<int>(n_target, 1));
  return {text, pairs};
}

}  // namespace

TEST_CASE("alignment: a line of three sentences is its sentences' alignments, offset", "[cli][alignment]") {
  const std::vector<std::string> sentences = {"A man rides a bike.", "Two dogs play in the snow.",
                                              "He sleeps."};
  const std::string line = sentences[0] + " " + sentences[1] + " " + sentences[2];
  const auto whole = test::run(translate() + " --alignment", line + "\n");
  REQUIRE(whole.exit_code == 0);
  const auto plain = test::run(translate(), line + "\n");
  const auto [text, pairs] = parse_aligned(split(whole.out, '\n').at(0), line);
  CHECK(text == split(plain.out, '\n').at(0));
  // Each sentence alone, its words offset by the words of the sentences before it.
  std::vector<Pair> expected;
  int source_offset = 0, target_offset = 0;
  for (const std::string& sentence : sentences) {
    const auto alone = test::run(translate() + " --alignment --no-split", sentence + "\n");
    const auto [alone_text, alone_pairs] = parse_aligned(split(alone.out, '\n').at(0), sentence);
    for (const Pair& p : alone_pairs)
      expected.push_back({p.source + source_offset, p.target + target_offset});
    source_offset += static_cast<int>(split(sentence, ' ').size());
    target_offset += static_cast<int>(split(alone_text, ' ').size());
  }
  CHECK(pairs == expected);  // so the second and third sentences' pairs start past the earlier words
}

TEST_CASE("alignment with --n-best: each hypothesis its own pairs", "[cli][alignment]") {
  const std::string source = "A man in an orange hat starring at something.";
  const auto out = test::run(translate() + " --n-best 3 --alignment", source + "\n");
  REQUIRE(out.exit_code == 0);
  const auto lines = split(out.out, '\n');
  REQUIRE(lines.size() == 3);
  const auto plain = split(test::run(translate() + " --n-best 3", source + "\n").out, '\n');
  for (size_t k = 0; k < 3; ++k) {
    // "0 ||| text ||| pairs ||| F0= raw ||| s", as marian-decoder orders them: the plain n-best line with
    // the pairs of its own text after the text.
    const size_t f0 = lines[k].find(" ||| F0= ");
    REQUIRE(f0 != std::string::npos);
    const size_t bar = lines[k].rfind(" ||| ", f0 - 1);
    CHECK(lines[k].substr(0, bar) + lines[k].substr(f0) == plain[k]);
    parse_aligned(lines[k].substr(5, f0 - 5), source);
  }
}

TEST_CASE("alignment with --scores and in jsonl", "[cli][alignment]") {
  const std::string input = "Two dogs play in the snow.\n\nA woman sings.\n";
  const auto text = split(test::run(translate() + " --alignment", input).out, '\n');
  const auto scored = split(test::run(translate() + " --alignment --scores", input).out, '\n');
  const auto jsonl = split(test::run(translate() + " --alignment --output-format jsonl", input).out, '\n');
  REQUIRE(text.size() == 3);
  REQUIRE(scored.size() == 3);
  REQUIRE(jsonl.size() == 3);
  CHECK(text[1] == " ||| ");  // a blank line: no words, no pairs
  for (size_t i = 0; i < 3; ++i) {
    CHECK(scored[i].substr(scored[i].find('\t') + 1) == text[i]);
    const auto j = nlohmann::json::parse(jsonl[i]);
    CHECK(j.at("text").get<std::string>() + " ||| " + j.at("alignment").get<std::string>() == text[i]);
  }
  CHECK(nlohmann::json::parse(split(test::run(translate() + " --output-format jsonl", input).out, '\n')[0])
            .at("alignment")
            .is_null());
}

TEST_CASE("alignment: sentences cut mid-way keep pairs in range", "[cli][alignment]") {
  std::string line;
  for (int i = 0; i < 6; ++i)
    line += "A man with a red hat and a blue coat walks his small dog through the park ";
  line += "Supercalifragilisticexpialidociousnessesdoodlebugbear.";
  const auto out = test::run(translate() + " --alignment --max-sentence-tokens 8 -q", line + "\n");
  REQUIRE(out.exit_code == 0);
  parse_aligned(split(out.out, '\n').at(0), line);
}

TEST_CASE("alignment layer: another layer, a layer out of range, only with --alignment", "[cli][alignment]") {
  const std::string input = "A man rides a bike.\n";
  const auto first = test::run(translate() + " --alignment --alignment-layer 0", input);
  REQUIRE(first.exit_code == 0);
  parse_aligned(split(first.out, '\n').at(0), "A man rides a bike.");
  const auto beyond = test::run(translate() + " --alignment --alignment-layer 3", input);
  CHECK(beyond.exit_code == cli::kExitUsage);
  CHECK_THAT(beyond.err, Catch::Contains("--alignment-layer must be in 0..2"));
  const auto alone = test::run(translate() + " --alignment-layer 1", input);
  CHECK(alone.exit_code == cli::kExitUsage);
}

TEST_CASE("alignment: the bundled model reads layer 1 by default, as the README's example shows",
          "[cli][alignment]") {
  const std::string bundled = "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
                              "/multi30k-en-de' --threads 1";
  // README: echo 'A man rides a bike.' | nmt translate --alignment
  const auto r = test::run(bundled + " --alignment", "A man rides a bike.\n");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "Ein Mann fährt ein Fahrrad. ||| 0-0 1-1 2-2 4-3 4-4\n");
  CHECK(r.out == test::run(bundled + " --alignment --alignment-layer 1", "A man rides a bike.\n").out);
  const auto info =
      test::run("'" + test::nmt_binary() + "' info '" + std::string(NMT_TEST_DATA) + "/multi30k-en-de'");
  CHECK_THAT(info.out, Catch::Contains("  alignment_layer: 1\n"));
}
