// libFuzzer target: arbitrary model directories through the checkpoint loader and weight lookup.
// Input: "JSON\0BLOB". The string "@@@@@@@@" in the JSON is replaced by the blob's real CRC-32, so the
// fuzzer gets past the checksum into tensor-table and config validation. Anything but a clean
// core::Error (ModelError) — a crash, a sanitizer report, another exception — is a finding.
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/error.h"
#include "models/checkpoint.h"
#include "models/transformer_weights.h"

namespace {

const std::string& scratch_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/nmt-fuzz-ckpt-XXXXXX";
    if (!::mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  return dir;
}

void write(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  std::string json = input.substr(0, split);
  const std::string blob = split == std::string::npos ? "" : input.substr(split + 1);
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08lx",
                crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(blob.data()), blob.size()) &
                    0xffffffffUL);
  for (size_t p; (p = json.find("@@@@@@@@")) != std::string::npos;) json.replace(p, 8, crc);
  write(scratch_dir() + "/model.json", json);
  write(scratch_dir() + "/weights.bin", blob);
  try {
    models::Checkpoint checkpoint(scratch_dir());
    models::load_weights(checkpoint);
  } catch (const core::Error&) {
  }
  return 0;
}
