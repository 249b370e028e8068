// libFuzzer target: arbitrary bytes through the restricted unpickler, then as a whole pytorch_model.bin
// (legacy pickles and storages, or a zip with ARCHIVE/data.pkl), every tensor read as f32. Anything but
// a clean core::Error is a finding.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "models/convert/pickle_reader.h"
#include "models/convert/torch_checkpoint.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    size_t consumed = 0;
    models::read_pickle(data, size, &consumed, "fuzz.pkl");
  } catch (const core::Error&) {
  }
  const std::string path = fuzz::scratch_path("pytorch_model.bin");
  fuzz::write_file(path, reinterpret_cast<const char*>(data), size);
  try {
    const models::TorchCheckpoint file(path);
    for (const models::SourceTensor& t : file.tensors()) file.read_f32(t.name);
  } catch (const core::Error&) {
  }
  return 0;
}
