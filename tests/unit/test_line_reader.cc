// cli::LineReader and cli::sanitize_utf8: endings, chunk boundaries, UTF-8 repair, limits.
#include <stdio.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cli/io/input_encoding.h"
#include "cli/io/io_error.h"
#include "cli/io/line_reader.h"
#include "test_support.h"

namespace {

using cli::LineEnding;
const std::string kFffd = "\xEF\xBF\xBD";

std::string fffd(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFffd;
  return s;
}

std::vector<cli::Line> read_all(const std::string& data, std::size_t buffer_size = 64 * 1024) {
  cli::LineReaderOptions options;
  options.buffer_size = buffer_size;
  cli::LineReader reader = cli::LineReader::from_string(data, "<test>", options);
  std::vector<cli::Line> lines;
  cli::Line line;
  while (reader.next(line)) lines.push_back(line);
  REQUIRE_FALSE(reader.next(line));  // end of input is sticky
  return lines;
}

// Every test input is read with buffers that split it everywhere.
const std::size_t kBufferSizes[] = {1, 2, 3, 5, 64 * 1024};

std::string reassemble(const std::vector<cli::Line>& lines) {
  std::string out;
  for (const auto& l : lines) out += l.text + std::string(cli::line_ending_chars(l.ending));
  return out;
}

}  // namespace

TEST_CASE("line_reader: endings are reported exactly", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    auto lines = read_all("a\r\nb\nc\r\n\r\nlast", bs);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].text == "a");
    CHECK(lines[0].ending == LineEnding::kCrLf);
    CHECK(lines[1].text == "b");
    CHECK(lines[1].ending == LineEnding::kLf);
    CHECK(lines[2].text == "c");
    CHECK(lines[2].ending == LineEnding::kCrLf);
    CHECK(lines[3].text == "");
    CHECK(lines[3].ending == LineEnding::kCrLf);
    CHECK(lines[4].text == "last");
    CHECK(lines[4].ending == LineEnding::kNone);
    CHECK(reassemble(lines) == "a\r\nb\nc\r\n\r\nlast");
  }
}

TEST_CASE("line_reader: empty input, empty lines, whitespace lines", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    CHECK(read_all("", bs).empty());
    auto one = read_all("\n", bs);
    REQUIRE(one.size() == 1);
    CHECK(one[0].text.empty());
    CHECK(one[0].ending == LineEnding::kLf);
    auto lines = read_all("x\n\n\n  \t \ny\n", bs);
    REQUIRE(lines.size() == 5);
    CHECK(lines[1].text.empty());
    CHECK(lines[2].text.empty());
    CHECK(lines[3].text == "  \t ");
    CHECK(lines[4].text == "y");
    CHECK(lines[4].ending == LineEnding::kLf);  // final newline starts no extra line
    auto spaces = read_all("   ", bs);
    REQUIRE(spaces.size() == 1);
    CHECK(spaces[0].text == "   ");
    CHECK(spaces[0].ending == LineEnding::kNone);
  }
}

TEST_CASE("line_reader: a CR not followed by LF ends a line", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    auto lines = read_all("a\rb\nc\r\r\nd\r", bs);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].text == "a");
    CHECK(lines[0].ending == LineEnding::kCr);
    CHECK(lines[1].text == "b");
    CHECK(lines[1].ending == LineEnding::kLf);
    CHECK(lines[2].text == "c");
    CHECK(lines[2].ending == LineEnding::kCr);
    CHECK(lines[3].text == "");
    CHECK(lines[3].ending == LineEnding::kCrLf);
    CHECK(lines[4].text == "d");
    CHECK(lines[4].ending == LineEnding::kCr);  // a final CR starts no extra line
    CHECK(reassemble(lines) == "a\rb\nc\r\r\nd\r");
  }
}

TEST_CASE("line_reader: N endings give N lines in CR, LF, CRLF and mixed files", "[cli][line_reader]") {
  for (const char* ending : {"\r", "\n", "\r\n"}) {
    std::string text;
    for (int i = 0; i < 7; ++i) text += "line " + std::to_string(i) + ending;
    for (std::size_t bs : kBufferSizes) {
      CAPTURE(ending, bs);
      const auto lines = read_all(text, bs);
      CHECK(lines.size() == 7);
      CHECK(reassemble(lines) == text);
    }
  }
  const std::string mixed = "a\rb\nc\r\nd\r\re\n\nf";
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    const auto lines = read_all(mixed, bs);
    CHECK(lines.size() == 8);
    CHECK(reassemble(lines) == mixed);
  }
}

TEST_CASE("line_reader: UTF-8 is repaired per line, across chunk boundaries", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    // The first line keeps the damage under the share that makes input binary (cli/io/input_encoding.h).
    static const char kInput[] = "mostly text\n\xE2\x82\xAC ok\n\xE2\x82\nx\0y\r\n\xED\xA0\x80";
    std::string input(kInput, sizeof kInput - 1);
    auto lines = read_all(input, bs);
    REQUIRE(lines.size() == 5);
    CHECK(lines[1].text == "\xE2\x82\xAC ok");
    CHECK(lines[2].text == fffd(1));  // truncated by the newline, which is never swallowed
    CHECK(lines[3].text == "x" + fffd(1) + "y");
    CHECK(lines[3].ending == LineEnding::kCrLf);
    CHECK(lines[4].text == fffd(3));
  }
}

TEST_CASE("line_reader: a leading BOM is stripped and reported", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    auto reader = cli::LineReader::from_string("\xEF\xBB\xBFhi\n\xEF\xBB\xBFthere", "<t>", {bs});
    cli::Line line;
    REQUIRE(reader.next(line));
    CHECK(line.text == "hi");
    CHECK(reader.had_bom());
    REQUIRE(reader.next(line));
    CHECK(line.text == "\xEF\xBB\xBFthere");  // only at the very start
  }
  cli::LineReaderOptions keep;
  keep.strip_bom = false;
  auto reader = cli::LineReader::from_string("\xEF\xBB\xBFhi", "<t>", keep);
  cli::Line line;
  REQUIRE(reader.next(line));
  CHECK(line.text == "\xEF\xBB\xBFhi");
  CHECK_FALSE(reader.had_bom());
}

TEST_CASE("line_reader: a 10 MB line from a file", "[cli][line_reader]") {
  test::TempDir dir;
  std::string big(10 * 1000 * 1000, 'x');
  big[12345] = '\xC3';  // one invalid byte somewhere in the middle
  std::string path = dir.write("big.txt", "short\n" + big + "\r\nend\n");
  cli::LineReader reader = cli::LineReader::open(path);
  cli::Line line;
  REQUIRE(reader.next(line));
  CHECK(line.text == "short");
  REQUIRE(reader.next(line));
  CHECK(line.text.size() == big.size() + 2);  // one byte became three
  CHECK(line.text.substr(12345, 3) == kFffd);
  CHECK(line.ending == LineEnding::kCrLf);
  REQUIRE(reader.next(line));
  CHECK(line.text == "end");
  CHECK_FALSE(reader.next(line));
  CHECK(reader.lines_read() == 3);
}

TEST_CASE("line_reader: many short lines through a tiny buffer, and batches", "[cli][line_reader]") {
  std::string input;
  for (int i = 0; i < 5000; ++i) input += "line " + std::to_string(i) + (i % 3 ? "\n" : "\r\n");
  cli::LineReaderOptions options;
  options.buffer_size = 7;
  auto reader = cli::LineReader::from_string(input, "<t>", options);
  int seen = 0;
  for (;;) {
    auto batch = reader.next_batch(64);
    if (batch.empty()) break;
    CHECK(batch.size() == (seen + 64 <= 5000 ? 64u : std::size_t(5000 - seen)));
    for (const auto& l : batch) {
      CHECK(l.text == "line " + std::to_string(seen));
      CHECK(l.ending == (seen % 3 ? LineEnding::kLf : LineEnding::kCrLf));
      ++seen;
    }
  }
  CHECK(seen == 5000);
  CHECK(reader.next_batch(10).empty());
  CHECK_THROWS_AS(reader.next_batch(0), std::invalid_argument);
}

TEST_CASE("line_reader: next_batch stops at max_bytes but returns at least one line", "[cli][line_reader]") {
  auto reader = cli::LineReader::from_string("aaaa\nbb\ncccccccc\nd\n");
  auto batch = reader.next_batch(100, 5);
  REQUIRE(batch.size() == 2);  // 4 < 5, then 4 + 2 >= 5
  batch = reader.next_batch(100, 1);
  REQUIRE(batch.size() == 1);
  CHECK(batch[0].text == "cccccccc");
  CHECK(reader.next_batch(100, 1).size() == 1);
  CHECK(reader.next_batch(100, 1).empty());
}

TEST_CASE("line_reader: max line size", "[cli][line_reader]") {
  for (std::size_t bs : kBufferSizes) {
    CAPTURE(bs);
    cli::LineReaderOptions options;
    options.buffer_size = bs;
    options.max_line_bytes = 10;
    auto ok = cli::LineReader::from_string("0123456789\n0123456789\r\n0123456789", "<in>", options);
    cli::Line line;
    CHECK(ok.next(line));
    CHECK(ok.next(line));
    CHECK(ok.next(line));
    CHECK_FALSE(ok.next(line));

    auto bad = cli::LineReader::from_string("ok\n01234567890\n", "in.txt", options);
    CHECK(bad.next(line));
    CHECK_THROWS_WITH(bad.next(line), "in.txt: line 2 is longer than the maximum of 10 bytes");
    auto bad_last = cli::LineReader::from_string("01234567890", "in.txt", options);
    CHECK_THROWS_AS(bad_last.next(line), cli::IoError);
    auto bad_cr = cli::LineReader::from_string("0123456789\r01234567890\r", "in.txt", options);
    CHECK(bad_cr.next(line));
    CHECK_THROWS_WITH(bad_cr.next(line), "in.txt: line 2 is longer than the maximum of 10 bytes");
  }
}

TEST_CASE("line_reader: fd and FILE* sources", "[cli][line_reader]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string data = "one\r\ntwo\nthree";
  REQUIRE(::write(fds[1], data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  ::close(fds[1]);
  {
    cli::LineReader reader(fds[0], "<pipe>", {4});
    auto lines = reader.next_batch(10);
    REQUIRE(lines.size() == 3);
    CHECK(reassemble(lines) == data);
  }
  ::close(fds[0]);  // borrowed fd: still ours to close

  std::string buf = "a\nb\r\nc";
  FILE* f = ::fmemopen(buf.data(), buf.size(), "r");
  REQUIRE(f != nullptr);
  CHECK(std::fgetc(f) == 'a');  // already consumed by someone else: the reader continues after it
  cli::LineReader reader(f, "<file>", {2});
  auto lines = reader.next_batch(10);
  REQUIRE(lines.size() == 3);
  CHECK(reassemble(lines) == "\nb\r\nc");
  std::fclose(f);
}

TEST_CASE("line_reader: open errors name the path", "[cli][line_reader]") {
  test::TempDir dir;
  std::string missing = dir.file("missing.txt");
  CHECK_THROWS_WITH(cli::LineReader::open(missing),
                    missing + ": cannot open for reading: No such file or directory");
  CHECK_THROWS_WITH(cli::LineReader::open(dir.path()), dir.path() + ": is a directory, not a text file");
  std::string odd = dir.file("new\nline");
  CHECK_THROWS_WITH(cli::LineReader::open(odd), Catch::StartsWith(dir.path() + "/new\\x0aline: "));
}

TEST_CASE("line_reader: random bytes keep the line-count and UTF-8 invariants", "[cli][line_reader]") {
  std::mt19937 rng(12345);
  const char alphabet[] = {'\n',   '\r',   '\0',   'a',    ' ',    '\x80', '\xBF',
                           '\xC3', '\xE2', '\xED', '\xF0', '\xF4', '\xFF'};
  for (int iter = 0; iter < 2000; ++iter) {
    std::string data(rng() % 40, '\0');
    for (char& c : data) c = rng() % 4 ? alphabet[rng() % sizeof alphabet] : static_cast<char>(rng());
    std::size_t bs = 1 + rng() % 9;
    // Mostly noise is refused as binary (cli/io/input_encoding.h); BOMs and gzip are decoded, not split here.
    const cli::InputEncoding kind = cli::detect_input_encoding(data);
    if (kind == cli::InputEncoding::kBinary) REQUIRE_THROWS_AS(read_all(data, bs), cli::IoError);
    if (kind != cli::InputEncoding::kUtf8) continue;
    auto lines = read_all(data, bs);
    // Every LF, and every CR not before an LF, ends a line; bytes after the last ending make one more.
    std::size_t endings = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
      endings += data[i] == '\n' || (data[i] == '\r' && (i + 1 == data.size() || data[i + 1] != '\n'));
    }
    const bool tail = !data.empty() && data.back() != '\n' && data.back() != '\r';
    REQUIRE(lines.size() == endings + (tail ? 1 : 0));
    for (const auto& l : lines) REQUIRE(core::is_valid_utf8(l.text));
    // Valid input survives byte for byte.
    if (core::is_valid_utf8(data) && data.find('\0') == std::string::npos &&
        data.rfind("\xEF\xBB\xBF", 0) != 0) {
      REQUIRE(reassemble(lines) == data);
    }
  }
}

TEST_CASE("line_reader: a batch from a pipe does not wait for lines nobody has written",
          "[cli][line_reader]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  cli::LineReader reader(fds[0], "<pipe>", {3});
  auto send = [&](const std::string& s) {
    REQUIRE(::write(fds[1], s.data(), s.size()) == static_cast<ssize_t>(s.size()));
  };
  send("a\nb\r\n");
  auto batch = reader.next_batch(100);  // would hang if it waited for 100 lines
  REQUIRE(batch.size() == 2);
  CHECK(batch[1].text == "b");
  send("c\nd");  // "d" is incomplete: the batch stops before it
  batch = reader.next_batch(100);
  REQUIRE(batch.size() == 1);
  CHECK(batch[0].text == "c");
  ::close(fds[1]);
  batch = reader.next_batch(100);
  REQUIRE(batch.size() == 1);
  CHECK(batch[0].text == "d");
  CHECK(batch[0].ending == LineEnding::kNone);
  CHECK(reader.next_batch(100).empty());
  ::close(fds[0]);

  // A regular file is always ready: full batches, independent of timing.
  test::TempDir dir;
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "x\n";
  auto file_reader = cli::LineReader::open(dir.write("many.txt", many), {5});
  CHECK(file_reader.next_batch(300).size() == 300);
}
