// libFuzzer target: arbitrary bytes as Marian's binary model.bin (MarianBinFile: the header table, names,
// shapes and data lengths, then every item read, an intgemm8 item's multiplier too). Anything but a clean
// core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/marian_bin.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_path("model.bin");
  fuzz::write_file(path, reinterpret_cast<const char*>(data), size);
  try {
    const models::MarianBinFile bin(path);
    for (const std::string& name : bin.names()) {
      const models::NpyArray a = bin.read(name);
      if (a.dtype == models::NpyDType::kF32 || a.dtype == models::NpyDType::kF16) a.to_f32();
      if (bin.intgemm8(name)) bin.intgemm8_multiplier(name);
    }
  } catch (const core::Error&) {
  }
  return 0;
}
