// End-to-end: `nmt translate --input-format jsonl` (text, prefix, beam_size) on the fixture model and the
// bundled en->de model.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/exit_codes.h"
#include "front/jsonl_input.h"
#include "test_support.h"

namespace {

std::string fixture() {
  return "'" + test::nmt_binary() + "' translate -m '" + test::fixtures_dir() + "/opus/model' --threads 1";
}

std::string bundled() {
  return "'" + test::nmt_binary() + "' translate -m '" + std::string(NMT_TEST_DATA) +
         "/multi30k-en-de' --threads 1";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string request(const std::string& text, const std::string& prefix = "", int beam_size = 0) {
  nlohmann::json j = {{"text", text}};
  if (!prefix.empty()) j["prefix"] = prefix;
  if (beam_size > 0) j["beam_size"] = beam_size;
  return j.dump() + "\n";
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// The first `n` words of `text`.
std::string first_words(const std::string& text, int n) {
  std::istringstream in(text);
  std::string out, word;
  for (int i = 0; i < n && in >> word; ++i) out += (out.empty() ? "" : " ") + word;
  return out;
}

const std::vector<std::string> kSources = {"A man rides a bike down the street.",
                                           "Two dogs play in the snow.",
                                           "A woman is reading a book in the park."};

// Each source with the first words of the next source's translation as its prefix: text it would not
// start with on its own. Checks every output starts with its prefix and differs from the free output.
void check_prefixes_forced(const std::string& translate, const std::string& flags) {
  INFO(translate << flags);
  std::string plain_input;
  for (const std::string& s : kSources) plain_input += s + "\n";
  const auto free = test::run(translate + flags, plain_input);
  REQUIRE(free.exit_code == 0);
  const auto free_lines = lines_of(free.out);
  REQUIRE(free_lines.size() == kSources.size());
  std::string input;
  std::vector<std::string> prefixes;
  for (size_t i = 0; i < kSources.size(); ++i) {
    prefixes.push_back(first_words(free_lines[(i + 1) % kSources.size()], 2));
    input += request(kSources[i], prefixes.back());
  }
  const auto forced = test::run(translate + flags + " --input-format jsonl", input);
  REQUIRE(forced.exit_code == 0);
  const auto lines = lines_of(forced.out);
  REQUIRE(lines.size() == kSources.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    INFO(prefixes[i] << " -> " << lines[i]);
    CHECK(starts_with(lines[i], prefixes[i]));
    CHECK(lines[i] != prefixes[i]);  // the search continues after the prefix
    if (!starts_with(free_lines[i], prefixes[i])) CHECK(lines[i] != free_lines[i]);
  }
}

}  // namespace

TEST_CASE("jsonl input: without prefixes, the texts translate as plain lines", "[cli][jsonl]") {
  const std::string plain_input = "the man is walking\n\na small dog. Two people sit on a bench.\n";
  std::string input;
  for (const std::string& line : lines_of(plain_input)) input += request(line);
  for (const char* flags : {"", " -b 3 --n-best 2", " --scores", " --no-split"}) {
    INFO(flags);
    const auto plain = test::run(fixture() + flags, plain_input);
    const auto jsonl = test::run(fixture() + flags + " --input-format jsonl", input);
    REQUIRE(plain.exit_code == 0);
    REQUIRE(jsonl.exit_code == 0);
    CHECK(jsonl.out == plain.out);
  }
}

TEST_CASE("jsonl input: prefixes are forced exactly (fixture model)", "[cli][jsonl]") {
  check_prefixes_forced(fixture(), "");
  check_prefixes_forced(fixture(), " -b 4");
}

TEST_CASE("jsonl input: prefixes are forced exactly (bundled model)", "[cli][jsonl]") {
  check_prefixes_forced(bundled(), " -b 1");
  check_prefixes_forced(bundled(), " -b 4 --batch-size 2");
  check_prefixes_forced(bundled(), " --sampling-topk 10 --seed 5");
}

TEST_CASE("jsonl input: a prefix applies to a line's first sentence", "[cli][jsonl]") {
  const std::string two = "A man rides a bike. Two dogs play in the snow.";
  const auto free = test::run(bundled() + " -b 1", "Two dogs play in the snow.\n" + two + "\n");
  REQUIRE(free.exit_code == 0);
  const auto free_lines = lines_of(free.out);
  const std::string prefix = first_words(free_lines[0], 2);
  const auto forced =
      test::run(bundled() + " -b 1 --input-format jsonl --output-format jsonl", request(two, prefix));
  REQUIRE(forced.exit_code == 0);
  const std::string text = nlohmann::json::parse(forced.out).at("text");
  CHECK(starts_with(text, prefix));
  // The second sentence translates as it does without the prefix.
  const std::string second = free_lines[0];
  CHECK(text.size() > second.size());
  CHECK(text.substr(text.size() - second.size()) == second);
}

TEST_CASE("jsonl input: a line's beam_size is its own", "[cli][jsonl]") {
  const std::string a = "Two people sit on a bench near a child\n",
                    b = "a woman rides a bike down the street\n";
  const auto beam1 = test::run(fixture() + " -b 1", a + b);
  const auto beam4 = test::run(fixture() + " -b 4", a + b);
  REQUIRE(beam1.exit_code == 0);
  REQUIRE(beam4.exit_code == 0);
  const auto greedy = lines_of(beam1.out), wide = lines_of(beam4.out);
  const auto mixed =
      test::run(fixture() + " -b 1 --input-format jsonl",
                request(a.substr(0, a.size() - 1), "", 4) + request(b.substr(0, b.size() - 1)));
  REQUIRE(mixed.exit_code == 0);
  CHECK(lines_of(mixed.out) == std::vector<std::string>{wide[0], greedy[1]});
}

TEST_CASE("jsonl input: malformed lines keep their place, warn and exit 1", "[cli][jsonl]") {
  const std::vector<std::string> bad = {
      "not json",
      "[\"text\"]",
      "{\"prefix\": \"a\"}",
      "{\"text\": 5}",
      "{\"text\": \"a dog\", \"prefix\": 3}",
      "{\"text\": \"a dog\", \"beam_size\": 0}",
      "{\"text\": \"a dog\", \"beam_size\": 300}",
      "{\"text\": \"a dog\", \"beam_size\": \"4\"}",
      "{\"text\": \"a dog\", \"beam\": 4}",
      "{\"text\": \"a\\ndog\"}",
      "{\"text\": \"  \", \"prefix\": \"der\"}",
      "",
  };
  std::string input = request("the man is walking");
  for (const std::string& line : bad) input += line + "\n";
  input += request("a small dog");
  const auto good = test::run(fixture(), "the man is walking\na small dog\n");
  REQUIRE(good.exit_code == 0);
  const auto good_lines = lines_of(good.out);

  const auto jsonl = test::run(fixture() + " --input-format jsonl --output-format jsonl", input);
  CHECK(jsonl.exit_code == cli::kExitFailure);
  const auto objects = lines_of(jsonl.out);
  REQUIRE(objects.size() == bad.size() + 2);
  CHECK(nlohmann::json::parse(objects.front()).at("text") == good_lines[0]);
  CHECK(nlohmann::json::parse(objects.back()).at("text") == good_lines[1]);
  for (size_t i = 0; i < bad.size(); ++i) {
    INFO(bad[i]);
    const auto j = nlohmann::json::parse(objects[i + 1]);
    CHECK(j.size() == 1);
    CHECK(!j.at("error").get<std::string>().empty());
    CHECK(jsonl.err.find("stdin:" + std::to_string(i + 2) + ": ") != std::string::npos);
  }

  const auto plain = test::run(fixture() + " --input-format jsonl", input);
  CHECK(plain.exit_code == cli::kExitFailure);
  std::vector<std::string> expected = {good_lines[0]};
  expected.insert(expected.end(), bad.size(), "");
  expected.push_back(good_lines[1]);
  CHECK(lines_of(plain.out) == expected);
}

TEST_CASE("jsonl input: over-long and deeply nested lines are malformed, not parsed", "[cli][jsonl]") {
  const std::string deep =
      std::string(front::kMaxJsonlDepth + 1, '[') + std::string(front::kMaxJsonlDepth + 1, ']');
  const std::string at_limit = "{\"text\": \"a dog\", \"x\": " + std::string(front::kMaxJsonlDepth - 1, '[') +
                               std::string(front::kMaxJsonlDepth - 1, ']') + "}";
  const std::string brackets_in_text = request("a dog " + std::string(200, '['));
  const std::string long_line = request(std::string(front::kMaxJsonlLineBytes, 'a'));
  const std::string input = deep + "\n" + at_limit + "\n" + brackets_in_text + long_line + request("a dog");
  const auto r = test::run(fixture() + " --input-format jsonl", input);
  CHECK(r.exit_code == cli::kExitFailure);
  CHECK(lines_of(r.out).size() == 5);
  CHECK(r.err.find("stdin:1: JSON nested more than 64 levels deep") != std::string::npos);
  CHECK(r.err.find("stdin:2: unknown field \"x\"") != std::string::npos);  // parsed: within the depth limit
  // Lines 1, 2 and 4: brackets inside a string (line 3) are text.
  CHECK(r.err.find("nmt: 3 malformed input line(s)") != std::string::npos);
  CHECK(r.err.find("stdin:4: line of " + std::to_string(long_line.size() - 1) +
                   " bytes is longer than the 4 MiB a JSON line may hold") != std::string::npos);
}

TEST_CASE("jsonl input: a prefix the vocabulary cannot spell is refused", "[cli][jsonl]") {
  const auto r = test::run(bundled() + " --input-format jsonl --output-format jsonl",
                           request("A dog.", "Der  Hund") + request("A dog.", "犬"));
  CHECK(r.exit_code == cli::kExitFailure);
  const auto objects = lines_of(r.out);
  REQUIRE(objects.size() == 2);
  for (const std::string& o : objects)
    CHECK(nlohmann::json::parse(o).at("error").get<std::string>().find("spells") != std::string::npos);
}

TEST_CASE("jsonl in and out: text round-trips through JSON escapes", "[cli][jsonl]") {
  const std::string text = "A \"quoted\" dog\\cat \xc3\xa9t\xc3\xa9 \t ok.";
  const auto plain = test::run(bundled() + " -b 1", text + "\n");
  const auto jsonl = test::run(bundled() + " -b 1 --input-format jsonl --output-format jsonl", request(text));
  REQUIRE(plain.exit_code == 0);
  REQUIRE(jsonl.exit_code == 0);
  CHECK(nlohmann::json::parse(jsonl.out).at("text") == lines_of(plain.out)[0]);
}

TEST_CASE("jsonl input in directory mode: malformed lines fail the run, files complete", "[cli][jsonl]") {
  test::TempDir dir;
  test::run("mkdir -p '" + dir.file("in") + "'");
  test::write_file(dir.file("in/a.jsonl"), request("a small dog") + "oops\n");
  const auto r = test::run(fixture() + " --input-format jsonl --output-format jsonl --input-dir '" +
                           dir.file("in") + "' --output-dir '" + dir.file("out") + "' -q");
  CHECK(r.exit_code == cli::kExitFailure);
  const auto objects = lines_of(test::read_file(dir.file("out/a.jsonl")));
  REQUIRE(objects.size() == 2);
  CHECK(nlohmann::json::parse(objects[0]).contains("text"));
  CHECK(nlohmann::json::parse(objects[1]).contains("error"));
}
