// libFuzzer target: arbitrary bytes as a CTranslate2 model.bin (binary version, spec, variables,
// aliases), every variable read as f32, then mapped as a TransformerSpec. Anything but a clean
// core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/ct2_model_bin.h"
#include "models/convert/ct2_transformer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const models::Ct2ModelBin bin =
        models::Ct2ModelBin::parse(std::string(reinterpret_cast<const char*>(data), size), "model.bin");
    for (const models::Ct2Variable& v : bin.variables()) {
      try {
        bin.read_f32(v.name);
      } catch (const core::Error&) {
      }
    }
    models::map_ct2_transformer(bin, 1e-5f);
  } catch (const core::Error&) {
  }
  return 0;
}
