// libFuzzer target: arbitrary bytes as a Marian .npz (NpzFile: libzip, then each member's .npy header and
// data). Anything but a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/npz.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_path("model.npz");
  fuzz::write_file(path, reinterpret_cast<const char*>(data), size);
  try {
    models::NpzFile npz(path);
    for (const std::string& name : npz.names()) {
      const models::NpyArray a = npz.read(name);
      if (a.dtype == models::NpyDType::kF32 || a.dtype == models::NpyDType::kF16) a.to_f32();
    }
  } catch (const core::Error&) {
  }
  return 0;
}
