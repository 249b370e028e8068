#include "models/hub/firefox_decoder_config.h"

#include "core/ends_with.h"

namespace hub {

namespace {

// As Firefox's engine configures Bergamot; the keys nmt convert does not read are kept so that the file
// records how Firefox runs the model (max-length-break is bergamot-translator's own: marian-decoder refuses
// it).
constexpr const char* kFirefoxSettings =
    "beam-size: 1\n"
    "normalize: 1.0\n"
    "word-penalty: 0\n"
    "max-length-break: 128\n"
    "mini-batch-words: 1024\n"
    "workspace: 128\n"
    "max-length-factor: 2.0\n"
    "skip-cost: true\n"
    "cpu-threads: 0\n"
    "quiet: true\n"
    "quiet-translation: true\n"
    "alignment: soft\n";

std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string firefox_decoder_yml(const ListingEntry& entry) {
  std::string model, lex, vocab, srcvocab, trgvocab;
  for (const ListingFile& f : entry.files) {
    std::string& slot = f.role == "model"      ? model
                        : f.role == "lex"      ? lex
                        : f.role == "vocab"    ? vocab
                        : f.role == "srcvocab" ? srcvocab
                                               : trgvocab;
    slot = f.name;
  }
  if (srcvocab.empty()) srcvocab = trgvocab = vocab;
  std::string yml = "relative-paths: true\n";
  yml += "models:\n  - " + yaml_quoted(model) + "\n";
  yml += "vocabs:\n  - " + yaml_quoted(srcvocab) + "\n  - " + yaml_quoted(trgvocab) + "\n";
  yml += "shortlist:\n  - " + yaml_quoted(lex) + "\n  - false\n";
  yml += kFirefoxSettings;
  yml += std::string("gemm-precision: ") +
         (core::ends_with(model, "intgemm8.bin") ? "int8shiftAll" : "int8shiftAlphaAll") + "\n";
  return yml;
}

}  // namespace hub
