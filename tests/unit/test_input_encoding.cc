// Input that is not what it claims: gzip without the name, UTF-16/32 with a BOM, binary data; output
// that must not vanish (-o x.gz, a closed or full stdout); sentences with nothing to translate.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <random>

#include "cli/files/file_walker.h"
#include "cli/io/input_decoder.h"
#include "cli/io/input_encoding.h"
#include "cli/io/io_error.h"
#include "cli/io/line_reader.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

std::string model() { return test::fixtures_dir() + "/opus/model"; }
std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string translate() { return nmt() + " translate -m '" + model() + "' --threads 1 -b 1"; }

void write_gzip(const std::string& path, const std::string& data) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, data.data(), static_cast<unsigned>(data.size())) == static_cast<int>(data.size()));
  REQUIRE(gzclose(f) == Z_OK);
}

std::vector<std::string> read_lines(cli::LineReader reader) {
  std::vector<std::string> lines;
  cli::Line line;
  while (reader.next(line)) lines.push_back(line.text);
  return lines;
}

// UTF-16 (2 bytes a unit) or UTF-32 (4) of ASCII text, with a BOM.
std::string wide(const std::string& ascii, int unit, bool big_endian) {
  std::string out;
  const auto put = [&](std::uint32_t cp) {
    for (int k = 0; k < unit; ++k) {
      const int shift = 8 * (big_endian ? unit - 1 - k : k);
      out += static_cast<char>((cp >> shift) & 0xFF);
    }
  };
  put(0xFEFF);
  for (char c : ascii) put(static_cast<unsigned char>(c));
  return out;
}

const std::string kText = "A dog runs.\nA man rides a bike.\n";

}  // namespace

TEST_CASE("input encoding: one rule decides gzip, BOMs and binary", "[cli][input_encoding]") {
  using cli::InputEncoding;
  CHECK(cli::detect_input_encoding("") == InputEncoding::kUtf8);
  CHECK(cli::detect_input_encoding("plain text\n") == InputEncoding::kUtf8);
  CHECK(cli::detect_input_encoding("\xEF\xBB\xBFtext") == InputEncoding::kUtf8);
  CHECK(cli::detect_input_encoding("\x1F\x8B\x08") == InputEncoding::kGzip);
  CHECK(cli::detect_input_encoding(std::string("\xFF\xFEh\0", 4)) == InputEncoding::kUtf16Le);
  CHECK(cli::detect_input_encoding("\xFE\xFF\0h") == InputEncoding::kUtf16Be);
  CHECK(cli::detect_input_encoding(std::string("\xFF\xFE\0\0h\0\0\0", 8)) == InputEncoding::kUtf32Le);
  CHECK(cli::detect_input_encoding(std::string("\0\0\xFE\xFF\0\0\0h", 8)) == InputEncoding::kUtf32Be);
  CHECK(cli::detect_input_encoding(std::string("h\0i\0\n\0", 6)) == InputEncoding::kBinary);  // no BOM
  CHECK(cli::detect_input_encoding(std::string("a line with a stray NUL\0\n", 25)) == InputEncoding::kUtf8);
}

TEST_CASE("line reader: gzip by content, UTF-16/32 by BOM, binary refused", "[cli][input_encoding]") {
  test::TempDir dir;
  const std::vector<std::string> expected = {"A dog runs.", "A man rides a bike."};
  write_gzip(dir.file("no_extension"), kText);
  CHECK(read_lines(cli::LineReader::open(dir.file("no_extension"))) == expected);
  test::write_file(dir.file("plain.gz"), kText);  // a .gz name over plain text is read as it is
  CHECK(read_lines(cli::LineReader::open(dir.file("plain.gz"))) == expected);
  for (int unit : {2, 4}) {
    for (bool big_endian : {false, true}) {
      CAPTURE(unit, big_endian);
      CHECK(read_lines(cli::LineReader::from_string(wide(kText, unit, big_endian))) == expected);
      cli::LineReaderOptions tiny;
      tiny.buffer_size = 3;  // code units split across reads
      CHECK(read_lines(cli::LineReader::from_string(wide(kText, unit, big_endian), "<t>", tiny)) == expected);
    }
  }
  // A surrogate pair (U+1F600), a lone high surrogate and a cut-off unit become U+1F600, U+FFFD, U+FFFD.
  const std::string utf16 = std::string("\xFF\xFE=\xD8\x00\xDE", 6) + std::string("\x3D\xD8\n\0x", 5);
  CHECK(read_lines(cli::LineReader::from_string(utf16)) ==
        std::vector<std::string>{"\xF0\x9F\x98\x80\xEF\xBF\xBD", "\xEF\xBF\xBD"});

  std::mt19937 rng(3);
  std::string noise(4000, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  test::write_file(dir.file("noise.txt"), noise);
  CHECK_THROWS_WITH(cli::LineReader::open(dir.file("noise.txt")),
                    dir.file("noise.txt") + ": " + std::string(cli::kBinaryInputMessage));
  write_gzip(dir.file("noise.gz"), noise);  // binary inside gzip is binary too, for the walker as well
  CHECK_THROWS_AS(cli::LineReader::open(dir.file("noise.gz")), cli::IoError);
  CHECK(cli::detect_text_encoding(test::read_file(dir.file("noise.gz"))) == cli::InputEncoding::kBinary);
  CHECK(cli::is_probably_binary(dir.file("noise.gz")));
  CHECK(cli::detect_text_encoding(test::read_file(dir.file("no_extension"))) == cli::InputEncoding::kGzip);
  CHECK_FALSE(cli::is_probably_binary(dir.file("no_extension")));
}

TEST_CASE("translate: gzip on stdin or without .gz, UTF-16 input, binary refused", "[cli][input_encoding]") {
  test::TempDir dir;
  test::write_file(dir.file("in.txt"), kText);
  const auto plain = test::run(translate() + " -i '" + dir.file("in.txt") + "'");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(std::count(plain.out.begin(), plain.out.end(), '\n') == 2);

  write_gzip(dir.file("in.txt.gz"), kText);
  const auto piped = test::run(translate() + " < '" + dir.file("in.txt.gz") + "'");
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == plain.out);
  const auto through_pipe = test::run("cat '" + dir.file("in.txt.gz") + "' | " + translate());
  CHECK(through_pipe.out == plain.out);
  write_gzip(dir.file("compressed"), kText);
  const auto named = test::run(translate() + " -i '" + dir.file("compressed") + "'");
  CHECK(named.exit_code == 0);
  CHECK(named.out == plain.out);

  test::write_file(dir.file("utf16.txt"), wide(kText, 2, false));
  const auto utf16 = test::run(translate() + " -i '" + dir.file("utf16.txt") + "'");
  CHECK(utf16.exit_code == 0);
  CHECK(utf16.out == plain.out);  // written as UTF-8

  std::string binary(3000, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 7 % 251);
  test::write_file(dir.file("data.bin"), binary);
  const auto file = test::run(translate() + " -i '" + dir.file("data.bin") + "'");
  CHECK(file.exit_code == 1);
  CHECK(file.out.empty());
  CHECK(file.err ==
        "nmt: error: " + dir.file("data.bin") + ": " + std::string(cli::kBinaryInputMessage) + "\n");
  const auto stdin_pipe = test::run("cat '" + dir.file("data.bin") + "' | " + translate());
  CHECK(stdin_pipe.exit_code == 1);
  CHECK(stdin_pipe.err == "nmt: error: <stdin>: " + std::string(cli::kBinaryInputMessage) + "\n");
}

TEST_CASE("translate: -o x.gz writes gzip, as directory mode does", "[cli][input_encoding]") {
  test::TempDir dir;
  const auto plain = test::run(translate(), kText);
  REQUIRE(plain.exit_code == 0);
  const auto r = test::run(translate() + " -o '" + dir.file("out.txt.gz") + "'", kText);
  REQUIRE(r.exit_code == 0);
  CHECK(test::read_file(dir.file("out.txt.gz")).substr(0, 2) == "\x1F\x8B");
  std::string unpacked;
  for (const std::string& line : read_lines(cli::LineReader::open(dir.file("out.txt.gz"))))
    unpacked += line + "\n";
  CHECK(unpacked == plain.out);
}

TEST_CASE("translate: text with no letters passes through, controls do not reach the model",
          "[cli][input_encoding]") {
  const auto clean = test::run(translate(), "A dog runs.\n");
  REQUIRE(clean.exit_code == 0);
  const std::string dog = clean.out.substr(0, clean.out.size() - 1);
  const std::vector<std::string> nothing = {"\x01\x02", "\xE2\x80\x8B", "\xEF\xBF\xBD", "...", " \x7F "};
  std::string input = "A dog runs.\x01\nA dog\xE2\x80\x8B runs.\n";
  for (const std::string& s : nothing) input += s + "\n";
  const auto r = test::run(translate(), input);
  REQUIRE(r.exit_code == 0);
  std::string expected = dog + "\x01\n" + dog + "\n";  // the control character after the sentence is kept
  for (const std::string& s : nothing) expected += s + "\n";
  CHECK(r.out == expected);
}

TEST_CASE("stdout closed or full: output is an error, never lost", "[cli][input_encoding]") {
  const auto closed = test::run(translate() + " >&-", "A dog runs.\n");
  CHECK(closed.exit_code == 1);
  CHECK(test::without_length_limit_warnings(closed.err) ==
        "nmt: error: <stdout>: is closed: the output has nowhere to go\n");
  CHECK(test::run(translate() + " >&-", "").exit_code == 0);  // nothing to write: nothing lost
  for (const std::string& command : {nmt() + " --version", nmt() + " info -m '" + model() + "'",
                                     nmt() + " translate --help", nmt() + " help"}) {
    CAPTURE(command);
    const auto r = test::run(command + " >&-");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Contains("<stdout>: is closed"));
  }
  if (::geteuid() != 0) {
    WARN("skipped the full-device half: mknod needs root");
    return;
  }
  test::TempDir dir;
  const std::string full = dir.file("full");
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  for (const std::string& command : {nmt() + " --version", nmt() + " info -m '" + model() + "'",
                                     nmt() + " translate --help", translate()}) {
    CAPTURE(command);
    const auto r = test::run(command + " > '" + full + "'", "A dog runs.\n");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Contains("<stdout>: write failed: No space left on device"));
  }
}
