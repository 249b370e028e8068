// Lines over the reader's byte cap: handed out in pieces cut at sentence starts, else spaces, else
// character boundaries; translated piece by piece into exactly one output line per input line.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cli/commands/translate_command.h"
#include "cli/io/io_error.h"
#include "cli/io/long_line_chunks.h"
#include "cli/io/translate_stream.h"
#include "core/utf8_text.h"
#include "test_support.h"

namespace {

using cli::Line;
using cli::LineEnding;

cli::LineReaderOptions small_cap(std::size_t max_bytes, std::size_t buffer_size,
                                 cli::LongLineCutter cut = cli::long_line_cutter("", false)) {
  cli::LineReaderOptions options;
  options.buffer_size = buffer_size;
  options.max_line_bytes = max_bytes;
  options.cut_long_line = std::move(cut);
  return options;
}

std::vector<Line> read_all(cli::LineReader& reader) {
  std::vector<Line> out;
  for (Line line; reader.next(line);) out.push_back(line);
  return out;
}

// The pieces joined back into lines: text + ending, the input exactly.
std::string reassemble(const std::vector<Line>& pieces) {
  std::string out;
  for (const Line& l : pieces) out += l.text + std::string(cli::line_ending_chars(l.ending));
  return out;
}

std::string sentences(int n) {
  const char* kSentences[] = {"A dog runs in the park.", "Mr. Smith walks his dog.", "Two men play chess!",
                              "Is it raining?", "A woman reads a book on a bench."};
  std::string line;
  for (int i = 0; i < n; ++i) line += (i ? " " : "") + std::string(kSentences[i % 5]);
  return line;
}

// Collects translate_lines' output in memory.
struct StringSink {
  std::string out;
  std::vector<std::string> warnings;
  void write_line(std::string_view text, LineEnding ending) {
    out += text;
    out += cli::line_ending_chars(ending);
  }
  void start_window(pipeline::TranslateOptions&) {}
  void flush() {}
  void warn(const std::string& text) { warnings.push_back(text); }
};

const pipeline::Translator& bundled() {
  static const pipeline::Translator translator(std::string(NMT_TEST_DATA) + "/multi30k-en-de");
  return translator;
}

std::string translate(cli::LineReader& reader, bool scores = false) {
  cli::TranslateCommandOptions options;
  options.translate = bundled().defaults();
  options.translate.beam_size = 1;
  options.scores = scores;
  StringSink sink;
  cli::translate_lines(bundled(), reader, sink, options);
  return sink.out;
}

}  // namespace

TEST_CASE("long lines: pieces of at most the cap, cut after spaces, endings and counts exact",
          "[cli][long_lines]") {
  const std::string data = "one two three four five six seven eight\r\nshort\n\nnine ten eleven twelve";
  for (std::size_t buffer_size : {1, 3, 7, 64 * 1024}) {
    CAPTURE(buffer_size);
    auto reader = cli::LineReader::from_string(data, "<t>", small_cap(12, buffer_size));
    const std::vector<Line> pieces = read_all(reader);
    REQUIRE(reassemble(pieces) == data);  // nothing lost, nothing added, endings kept
    REQUIRE(reader.lines_read() == 4);
    std::size_t whole_lines = 0;
    for (const Line& l : pieces) {
      CHECK(l.text.size() <= 12);
      if (l.continues) {
        CHECK(l.ending == LineEnding::kNone);
        CHECK(l.text.back() == ' ');  // cut after a space: the next piece starts a word
      } else {
        ++whole_lines;
      }
    }
    CHECK(whole_lines == 4);
    CHECK(pieces.front().text == "one two ");
    CHECK(pieces.front().continues);
  }
}

TEST_CASE("long lines: a cut falls at a sentence start, not after an abbreviation", "[cli][long_lines]") {
  const tokenizer::SentenceSplitter en("en");
  // The cap ends just after "Mr. ": the last ". " before it is no sentence end.
  const std::string text = sentences(6) + " " + sentences(5);
  const std::size_t mr = text.rfind("Mr. ");
  const std::size_t cut = cli::long_line_cut(text, mr + 4, &en);
  CHECK(text.substr(cut, 14) == "Mr. Smith walk");
  CHECK(text[cut - 1] == ' ');
  // Without a splitter: after the last space.
  CHECK(cli::long_line_cut(text, mr + 4, nullptr) == mr + 4);
}

TEST_CASE("long lines: a line without spaces is cut between characters", "[cli][long_lines]") {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "\xC3\xA4\xE2\x82\xAC";  // ä€: 2- and 3-byte characters
  for (std::size_t cap : {5, 6, 7, 8, 11}) {
    CAPTURE(cap);
    auto reader = cli::LineReader::from_string(text + "\n", "<t>", small_cap(cap, 4));
    const std::vector<Line> pieces = read_all(reader);
    REQUIRE(reassemble(pieces) == text + "\n");
    for (const Line& l : pieces) {
      CHECK(core::is_valid_utf8(l.text));
      CHECK(l.text.find("\xEF\xBF\xBD") == std::string::npos);  // no character cut in two
      CHECK(std::string(cli::piece_separator(l, "x", false)) == (l.continues ? " " : ""));
    }
  }
}

TEST_CASE("long lines: a BOM is stripped once, at the very start", "[cli][long_lines]") {
  const std::string data =
      "\xEF\xBB\xBFone two three four \xEF\xBB\xBF"
      "five six";
  auto reader = cli::LineReader::from_string(data, "<t>", small_cap(10, 5));
  const std::vector<Line> pieces = read_all(reader);
  REQUIRE(reader.had_bom());
  REQUIRE(reassemble(pieces) == data.substr(3));
}

TEST_CASE("long lines: translated in pieces exactly as whole, one output line per input line",
          "[cli][long_lines]") {
  const std::string input = "  " + sentences(14) + "\n" + "A cat sleeps.\r\n" + sentences(9) + "  ";
  auto whole = cli::LineReader::from_string(input, "<t>");
  const std::string expected = translate(whole);
  REQUIRE(std::count(expected.begin(), expected.end(), '\n') == 2);
  for (std::size_t cap : {120, 200}) {
    CAPTURE(cap);
    cli::LineReaderOptions options;
    options.max_line_bytes = cap;
    auto pieces = cli::LineReader::from_string(input, "<t>", options);
    REQUIRE(translate(pieces) == expected);
    REQUIRE(pieces.lines_read() == 3);
  }
  // The scores format needs a whole line: over the cap is still an error there.
  cli::LineReaderOptions options;
  options.max_line_bytes = 120;
  auto scored = cli::LineReader::from_string(input, "in.txt", options);
  REQUIRE_THROWS_WITH(translate(scored, true), "in.txt: line 1 is longer than the maximum of 120 bytes");
}

TEST_CASE("long lines: .gz input comes in the same pieces as plain input", "[cli][long_lines]") {
  test::TempDir dir;
  const std::string data = sentences(40) + "\n" + sentences(3) + "\n" + std::string(300, 'x');
  test::write_file(dir.file("in.txt"), data);
  REQUIRE(test::run("gzip -k '" + dir.file("in.txt") + "'").exit_code == 0);
  const tokenizer::SentenceSplitter en("en");
  const auto cut = [&](std::string_view text, std::size_t max) { return cli::long_line_cut(text, max, &en); };
  auto plain = cli::LineReader::open(dir.file("in.txt"), small_cap(100, 64 * 1024, cut));
  auto gz = cli::LineReader::open(dir.file("in.txt.gz"), small_cap(100, 64 * 1024, cut));
  const std::vector<Line> a = read_all(plain), b = read_all(gz);
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() > 6);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].text == b[i].text);
    CHECK(a[i].continues == b[i].continues);
  }
  REQUIRE(reassemble(b) == data);
  REQUIRE(gz.lines_read() == 3);
}

TEST_CASE("long lines: pieces join by the pipeline's rule, without a space into CJK", "[cli][long_lines]") {
  const Line cut_in_word{"abc", cli::LineEnding::kNone, true};
  const Line cut_after_space{"abc ", cli::LineEnding::kNone, true};
  const Line last{"abc", cli::LineEnding::kLf, false};
  CHECK(cli::piece_separator(cut_in_word, "x", false) == " ");
  CHECK(cli::piece_separator(cut_in_word, "x", true) == "");
  CHECK(cli::piece_separator(cut_in_word, "", false) == "");
  CHECK(cli::piece_separator(cut_after_space, "x", false) == "");
  CHECK(cli::piece_separator(last, "x", false) == "");
}
