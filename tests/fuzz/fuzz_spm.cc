// libFuzzer target: arbitrary bytes as a SentencePiece model through the tokenizer's loader, then a
// few encodes and decodes if it loads. Anything but a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "scratch_file.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_path("model.spm");
  fuzz::write_file(path, reinterpret_cast<const char*>(data), size);
  tokenizer::TokenizerSpec spec;
  spec.source_spm = spec.target_spm = path;
  try {
    tokenizer::Tokenizer tok(spec);
    for (const char* text : {"", "Hello world.", ">>de<< a b", "\xe2\x96\x81\xff x"}) {
      const std::vector<int32_t> ids = tok.encode(text);
      tok.decode(ids);
    }
    tok.decode({0, 1, 2, 3, 1000000, -1});
  } catch (const core::Error&) {
  }
  return 0;
}
