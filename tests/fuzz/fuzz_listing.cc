// libFuzzer target: what a model listing's server sends (models/hub/model_listing.h, tar_package.h). The
// first byte picks the reader: 0, the bytes as listing JSON (translateLocally's or Remote Settings');
// 1, as a .tar.gz package unpacked into a scratch folder. Anything but a clean core::Error is a finding.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "models/hub/model_listing.h"
#include "models/hub/tar_package.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* body = reinterpret_cast<const char*>(data) + 1;
  try {
    if (data[0] % 2 == 0) {
      const nlohmann::json j = nlohmann::json::parse(body, body + size - 1, nullptr, false);
      if (!j.is_discarded())
        hub::parse_listing("http://127.0.0.1/listing", j, "http://127.0.0.1/attachments/");
    } else {
      const std::string archive = fuzz::scratch_path("package.tar.gz");
      const std::string dir = fuzz::scratch_path("unpacked");
      fuzz::write_file(archive, body, size - 1);
      std::filesystem::remove_all(dir);
      hub::unpack_tar_gz(archive, dir);
    }
  } catch (const core::Error&) {
  }
  return 0;
}
