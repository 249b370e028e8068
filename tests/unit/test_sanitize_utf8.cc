// sanitize_utf8 (core/utf8_text.h): valid text untouched, each maximal ill-formed subpart one U+FFFD.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/utf8_text.h"

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string fffd(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFffd;
  return s;
}

}  // namespace

TEST_CASE("sanitize_utf8: valid text is unchanged", "[cli][utf8]") {
  const std::string valid[] = {
      "",
      "plain ascii",
      "\xC2\x80",                                          // U+0080
      "\xDF\xBF",                                          // U+07FF
      "\xE0\xA0\x80",                                      // U+0800
      "\xED\x9F\xBF",                                      // U+D7FF, just below the surrogates
      "\xEE\x80\x80",                                      // U+E000, just above them
      "\xEF\xBF\xBD",                                      // U+FFFD itself
      "\xF0\x90\x80\x80",                                  // U+10000
      "\xF4\x8F\xBF\xBF",                                  // U+10FFFF
      "gr\xC3\xBC\xC3\x9F \xE2\x82\xAC \xF0\x9F\x98\x80",  // grüß € 😀
      "\x01\x1B[0m\x7F",                                   // controls other than NUL are kept
  };
  for (const std::string& s : valid) {
    CAPTURE(s);
    CHECK(core::sanitize_utf8(s) == s);
    CHECK(core::is_valid_utf8(s));
  }
}

TEST_CASE("sanitize_utf8: maximal subparts become one U+FFFD each", "[cli][utf8]") {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      // lone continuation bytes: one each
      {"\x80", fffd(1)},
      {"a\x80\xBF"
       "b",
       "a" + fffd(2) + "b"},
      // bytes that never start a sequence
      {"\xFE\xFF", fffd(2)},
      {"\xF5\x80\x80\x80", fffd(4)},
      // truncated sequences: one for the whole valid prefix
      {"\xC3", fffd(1)},
      {"\xE2\x82", fffd(1)},
      {"\xE2\x82x", fffd(1) + "x"},
      {"\xF0\x9F\x98", fffd(1)},
      {"\xF0\x9F\x98 ok", fffd(1) + " ok"},
      {"\xE2\xE2\x82\xAC", fffd(1) + "\xE2\x82\xAC"},
      // overlongs: the lead cannot be followed by these bytes, so every byte is its own error
      {"\xC0\xAF", fffd(2)},
      {"\xC1\xBF", fffd(2)},
      {"\xE0\x80\xAF", fffd(3)},
      {"\xE0\x9F\xBF", fffd(3)},
      {"\xF0\x80\x80\xAF", fffd(4)},
      {"\xF0\x8F\xBF\xBF", fffd(4)},
      // UTF-16 surrogates
      {"\xED\xA0\x80", fffd(3)},
      {"\xED\xBF\xBF", fffd(3)},
      {"\xED\xA0\x80\xED\xB0\x80", fffd(6)},  // a CESU-8 pair
      // above U+10FFFF
      {"\xF4\x90\x80\x80", fffd(4)},
      {"\xF7\xBF\xBF\xBF", fffd(4)},
      // Unicode 15, Table 3-8 (U+FFFD for maximal subparts)
      {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
       "a" + fffd(3) + "b" + fffd(1) + "c" + fffd(2) + "d"},
      // NUL bytes are replaced too
      {std::string("a\0b", 3), "a" + fffd(1) + "b"},
      {std::string("\0\0", 2), fffd(2)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.in);
    std::string out = core::sanitize_utf8(c.in);
    CHECK(out == c.out);
    CHECK(core::is_valid_utf8(out));
    // NUL is valid UTF-8; sanitize_utf8 replaces it anyway.
    if (c.in.find('\0') == std::string::npos) CHECK_FALSE(core::is_valid_utf8(c.in));
  }
}
