// A SentencePiece model whose trie cannot be built (an empty piece) is a clean error naming the file,
// not an exception from inside SentencePiece that ends the process (a fuzz_spm finding).
#include <catch2/catch.hpp>
#include <string>

#include "core/error.h"
#include "test_support.h"
#include "tokenizer/tokenizer.h"

using Catch::Matchers::Contains;

TEST_CASE("a SentencePiece model with an empty piece is refused, naming the file", "[hostile][tokenizer]") {
  // The fuzzer's input: a unigram model proto whose second piece is the empty string.
  const std::string proto(
      "\x0a\x0e\x0a\x05<unk>\x15\x00\xfd\x00\xfb\x18\x02\x0a\x0c\x0a\x0a\x00\x00\x00\x00"
      "\x18\x02\x0a\x0c\x0a\x03",
      30);
  test::TempDir dir;
  const std::string path = dir.file("bad.spm");
  test::write_file(path, proto);
  tokenizer::TokenizerSpec spec;
  spec.source_spm = spec.target_spm = path;
  REQUIRE_THROWS_MATCHES(tokenizer::Tokenizer(spec), core::Error,
                         Catch::Matchers::Predicate<core::Error>(
                             [&](const core::Error& e) {
                               return std::string(e.what()).find(
                                          "bad.spm: cannot load SentencePiece model") != std::string::npos;
                             },
                             "names the file"));
}
