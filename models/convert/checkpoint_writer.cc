#include "models/convert/checkpoint_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/half.h"
#include "models/blob_crc32.h"

namespace models {

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw core::Error(tmp + ": cannot create: " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw core::Error(tmp + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw core::Error(path + ": cannot rename from " + tmp + ": " + std::strerror(errno));
  }
}

void write_checkpoint(const std::string& dir, const ModelDescription& description,
                      const std::vector<NamedTensor>& tensors, DType dtype) {
  std::string blob;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& t : tensors) {
    uint64_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
    if (elements != t.values.size()) {
      throw core::Error("tensor '" + t.name + "': " + std::to_string(t.values.size()) +
                        " values do not fill shape " + shape_to_string(t.shape));
    }
    blob.resize((blob.size() + 63) / 64 * 64, '\0');
    const uint64_t offset = blob.size();
    if (dtype == DType::kF32) {
      blob.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float));
    } else {
      for (float v : t.values) {
        const uint16_t h = core::float_to_half(v);
        blob.append(reinterpret_cast<const char*>(&h), sizeof h);
      }
    }
    table.push_back({{"name", t.name},
                     {"dtype", dtype == DType::kF32 ? "f32" : "f16"},
                     {"shape", t.shape},
                     {"offset", offset},
                     {"nbytes", blob.size() - offset}});
  }
  const uint32_t crc = blob_crc32(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));

  nlohmann::json meta = description_to_json(description);
  meta["format"] = "nmt-checkpoint";
  meta["version"] = 1;
  meta["weights"] = {{"file", "weights.bin"}, {"size", blob.size()}, {"crc32", hex}};
  meta["tensors"] = table;
  write_file_atomically(dir + "/weights.bin", blob);
  write_file_atomically(dir + "/model.json", meta.dump(1) + "\n");
}

}  // namespace models
