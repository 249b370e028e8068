// libFuzzer target: arbitrary bytes as a JSON vocabulary (Vocabulary::load_json) and as a Marian YAML
// vocabulary (parse_vocab_yaml). Anything but a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/marian_yaml.h"
#include "scratch_file.h"
#include "tokenizer/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string path = fuzz::scratch_path("vocab.json");
  fuzz::write_file(path, text.data(), text.size());
  try {
    const tokenizer::Vocabulary v = tokenizer::Vocabulary::load_json(path);
    v.piece(v.id("a", 0));
  } catch (const core::Error&) {
  }
  try {
    models::parse_vocab_yaml(text, "vocab.yml");
  } catch (const core::Error&) {
  }
  return 0;
}
