// The converters' file formats (.npy, Marian YAML, vocab.yml) and convert-then-translate end to end.
#include "convert_test_support.h"

using namespace convert_test;

TEST_CASE("npy headers: versions, shapes, dtypes", "[convert]") {
  const std::string data(24, '\0');
  for (int version : {1, 2, 3}) {
    const auto h = models::parse_npy_header(npy("<f4", {2, 3}, data, version), "x");
    REQUIRE(h.dtype == models::NpyDType::kF32);
    REQUIRE(h.shape == std::vector<int64_t>{2, 3});
  }
  REQUIRE(models::parse_npy_header(npy("<f2", {12}, data), "x").shape == std::vector<int64_t>{12});
  REQUIRE(models::parse_npy_header(npy("<f4", {}, std::string(4, '\0')), "x").shape.empty());
  // Python 2 long literals, double quotes, no trailing comma.
  std::string dict = "{\"descr\": \"|u1\", \"shape\": (3L,), \"fortran_order\": False}";
  while ((10 + dict.size() + 1) % 16) dict += ' ';
  std::string v1 = std::string("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(dict.size() + 1);
  v1.append(reinterpret_cast<const char*>(&len), 2);
  v1 += dict + "\nabc";
  const auto h = models::parse_npy_header(v1, "x");
  REQUIRE(h.dtype == models::NpyDType::kU8);
  REQUIRE(h.shape == std::vector<int64_t>{3});
  auto fails = [](const std::string& bytes) {
    try {
      models::parse_npy_header(bytes, "W.npy");
    } catch (const models::ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  REQUIRE(contains(fails(npy("<f4", {2, 3}, data.substr(4))), "needs 24 data bytes, the array has 20"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "'shape'", "'shapE'")), "unexpected key 'shapE'"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "'fortran_order': False, ", std::string(24, ' '))),
                   "lacks 'fortran_order'"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "(6, )", "(6,x)")), "shape must be a tuple"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), ", }", ",,}")), "malformed header"));
  REQUIRE(contains(fails(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)), "runs past the end"));
  REQUIRE(contains(fails("\x93NUMP"), "bad magic"));
}

TEST_CASE("Marian YAML: flat maps, lists, quoting", "[convert]") {
  const auto y = models::FlatYaml::parse(
      "# comment\n"
      "type: transformer\n"
      "dim-vocabs:\n"
      "  - 58100\n"
      "  - 58101\n"
      "transformer-preprocess: \"\"\n"
      "quoted: 'it''s'\n"
      "flow: [a, \"b c\", 3]\n"
      "empty-list:\n"
      "  []\n"
      "nested:\n"
      "  inner: 1\n"
      "  - skipped\n"
      "beam-size: 6  # trailing comment\n"
      "flag: true\n"
      "---\n",
      "model.yml");
  REQUIRE(y.string("type", "") == "transformer");
  REQUIRE(y.list("dim-vocabs") == std::vector<std::string>{"58100", "58101"});
  REQUIRE(y.string("transformer-preprocess", "x").empty());
  REQUIRE(y.string("quoted", "") == "it's");
  REQUIRE(y.list("flow") == std::vector<std::string>{"a", "b c", "3"});
  REQUIRE(y.list("empty-list").empty());
  REQUIRE(y.has("empty-list"));
  REQUIRE(y.integer("beam-size", 0) == 6);
  REQUIRE(y.boolean("flag", false));
  REQUIRE(y.integer("absent", 42) == 42);
  REQUIRE_THROWS_WITH(y.integer("type", 0), Catch::Contains("model.yml: type: expected an integer"));
  REQUIRE_THROWS_WITH(y.string("dim-vocabs", ""), Catch::Contains("expected a single value"));
  REQUIRE_THROWS_WITH(models::FlatYaml::parse("a: 1\njunk\n", "f.yml"),
                      Catch::Contains("f.yml:2: expected 'key: value'"));
  REQUIRE_THROWS_WITH(models::FlatYaml::parse("a: 1\na: 2\n", "f.yml"), Catch::Contains("'a' appears twice"));
  // special:model.yml is NUL-terminated; anything after the NUL is ignored.
  REQUIRE(models::FlatYaml::parse(std::string("a: 1\n\0garbage", 14), "m").integer("a", 0) == 1);
}

TEST_CASE("Marian vocab.yml: plain, quoted and escaped pieces", "[convert]") {
  const std::string text =
      "\"</s>\": 0\n"
      "\"<unk>\": 1\n"
      "\xE2\x96\x81the: 2\n"      // ▁the, plain UTF-8
      "\"\\u2581der\": 3\n"       // \u escape
      "\"\\\"\": 4\n"             // a double quote
      "'it''s': 5\n"              // single-quoted
      "\"a\\\\b\": 6\n"           // backslash
      "\"\\U0001F600\": 7\n"      // 😀 as \U
      "\"\\ud83d\\ude00x\": 8\n"  // 😀 as a JSON surrogate pair, then x
      "\"\\x41\\t\": 9\n"         // \x and \t
      "a:b: 10\n"                 // colon inside a plain key
      "\"yes\": 11\n"             // would be a boolean unquoted
      "\"123\": 12\n"             // would be a number unquoted
      "\"key\" : 13  # comment\n";
  const auto v = models::parse_vocab_yaml(text, "vocab.yml");
  const std::vector<std::pair<std::string, int32_t>> expected = {{"</s>", 0},
                                                                 {"<unk>", 1},
                                                                 {"\xE2\x96\x81the", 2},
                                                                 {"\xE2\x96\x81"
                                                                  "der",
                                                                  3},
                                                                 {"\"", 4},
                                                                 {"it's", 5},
                                                                 {"a\\b", 6},
                                                                 {"\xF0\x9F\x98\x80", 7},
                                                                 {"\xF0\x9F\x98\x80x", 8},
                                                                 {"A\t", 9},
                                                                 {"a:b", 10},
                                                                 {"yes", 11},
                                                                 {"123", 12},
                                                                 {"key", 13}};
  REQUIRE(v == expected);
  auto fails = [](const std::string& t) {
    try {
      models::parse_vocab_yaml(t, "v.yml");
    } catch (const models::ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  REQUIRE(contains(fails("a: 1\n\"b: 2\n"), "v.yml:2: unterminated quoted string"));
  REQUIRE(contains(fails("a: x\n"), "v.yml:1: id must be an integer"));
  REQUIRE(contains(fails("a: 1\na: 2\n"), "piece 'a' appears twice"));
  REQUIRE(contains(fails("\"\\q\": 1\n"), "unknown escape"));
  REQUIRE(contains(fails("\"\\ud800\": 1\n"), "lone surrogate"));
  REQUIRE(contains(fails("  a: 1\n"), "unexpected indentation"));
  // The fixture's vocab.yml, written by PyYAML-compatible quoting, reads back completely.
  const auto fixture = models::parse_vocab_yaml(test::read_file(marian_dir() + "/vocab.yml"), "vocab.yml");
  REQUIRE(fixture.size() == 337);
}

// ================================================================================================
// Command line

TEST_CASE("nmt convert then nmt translate, end to end", "[convert]") {
  test::TempDir tmp;
  const std::string nmt = test::nmt_binary();
  const json hf = hf_golden();
  const json marian = marian_golden();
  std::string input;
  for (const auto& t : hf["sources_text"]) input += t.get<std::string>() + "\n";
  const std::string limits = " -b 1 --max-length-a 1 --max-length-b 5 --max-length 512 --no-split";

  for (const auto& [from, dir, g] : {std::tuple<std::string, std::string, json>{"hf-marian", hf_dir(), hf},
                                     {"marian-npz", marian_dir(), marian}}) {
    const std::string out = tmp.file(from);
    const auto conv = test::run(nmt + " convert --from " + from + " '" + dir + "' -o '" + out + "'");
    INFO(conv.err);
    REQUIRE(conv.exit_code == 0);
    REQUIRE(contains(conv.out, "converted"));
    const auto tr = test::run(nmt + " translate -m '" + out + "'" + limits, input);
    INFO(tr.err);
    REQUIRE(tr.exit_code == 0);
    std::string expected;
    for (size_t i = 0; i < g["greedy_text"].size(); ++i) {
      expected += test::with_source_whitespace(hf["sources_text"][i], g["greedy_text"][i]) + "\n";
    }
    REQUIRE(tr.out == expected);
  }

  // Refusals: a non-empty output directory is a usage error (64); a broken model exits 2 with one line.
  const auto again =
      test::run(nmt + " convert --from hf-marian '" + hf_dir() + "' -o '" + tmp.file("hf-marian") + "'");
  REQUIRE(again.exit_code == 64);
  REQUIRE(contains(again.err, "--force"));
  copy_dir(hf_dir(), tmp.file("bad"));
  edit_config(tmp.file("bad"), "normalize_embedding", true);
  const auto bad =
      test::run(nmt + " convert --from hf-marian '" + tmp.file("bad") + "' -o '" + tmp.file("o") + "'");
  REQUIRE(bad.exit_code == 2);
  REQUIRE(contains(bad.err, "nmt: error: "));
  REQUIRE(contains(bad.err, "normalize_embedding"));
  REQUIRE(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  REQUIRE(!fs::exists(tmp.file("o")));
  const auto mixed =
      test::run(nmt + " convert --from hf-marian '" + hf_dir() + "' --npz x.npz -o '" + tmp.file("p") + "'");
  REQUIRE(mixed.exit_code == 64);
  // The wrong --from gets a hint.
  const auto wrong =
      test::run(nmt + " convert --from hf-marian '" + marian_dir() + "' -o '" + tmp.file("r") + "'");
  REQUIRE(wrong.exit_code == 2);
  REQUIRE(contains(wrong.err,
                   "config.json: missing (an .npz is there: for a native Marian release use --from "
                   "marian-npz)"));
  const auto wrong2 =
      test::run(nmt + " convert --from marian-npz '" + hf_dir() + "' -o '" + tmp.file("r") + "'");
  REQUIRE(wrong2.exit_code == 2);
  REQUIRE(contains(wrong2.err, "use --from hf-marian"));
  const auto help = test::run(nmt + " convert --help");
  REQUIRE(help.exit_code == 0);
  REQUIRE(contains(help.out, "Examples:"));
  REQUIRE(contains(help.out, "--from"));
  // Without --from the layout is told from the files (test_convert_messages.cc); a file is not a layout.
  const auto not_a_directory =
      test::run(nmt + " convert '" + hf_dir() + "/config.json' -o '" + tmp.file("q") + "'");
  REQUIRE(not_a_directory.exit_code == 64);
  REQUIRE(contains(not_a_directory.err, "it is not a directory; give --from"));
}
