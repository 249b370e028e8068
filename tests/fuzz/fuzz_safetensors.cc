// libFuzzer target: arbitrary bytes as a Hugging Face model.safetensors (8-byte header length, JSON
// header, data), then every tensor read as f32. Anything but a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/safetensors.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::scratch_path("model.safetensors");
  fuzz::write_file(path, reinterpret_cast<const char*>(data), size);
  try {
    const models::SafetensorsFile file(path);
    for (const models::SourceTensor& t : file.tensors()) file.read_f32(t.name);
  } catch (const core::Error&) {
  }
  return 0;
}
