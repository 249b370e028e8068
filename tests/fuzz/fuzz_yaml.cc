// libFuzzer target: arbitrary bytes as a Marian decoder.yml / model.yml (FlatYaml::parse) and every typed
// accessor on the keys the converter reads. Anything but a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/marian_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const models::FlatYaml yml = models::FlatYaml::parse(text, "decoder.yml");
    for (const char* key : {"models", "vocabs", "beam-size", "type", "dec-depth", "transformer-heads"}) {
      try {
        yml.list(key);
        yml.string(key, "");
        yml.integer(key, 0);
        yml.number(key, 0.0);
        yml.boolean(key, false);
      } catch (const core::Error&) {
      }
    }
  } catch (const core::Error&) {
  }
  try {
    models::yaml_scalar(text);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
