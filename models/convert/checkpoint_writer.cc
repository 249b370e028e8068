#include "models/convert/checkpoint_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/half.h"
#include "core/unique_fd.h"
#include "models/blob_crc32.h"

namespace models {

void write_file_atomically(const std::string& path, const std::string& bytes) {
  // A fresh name created with O_EXCL|O_NOFOLLOW: a symlink planted in the output directory is never
  // followed, a leftover file never reused.
  std::string tmp = path + ".XXXXXX";
  core::UniqueFd fd(::mkostemp(&tmp[0], O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) throw core::Error(path + ": cannot create a temporary file: " + std::strerror(errno));
  const auto fail = [&](const std::string& what, int err) {
    ::unlink(tmp.c_str());
    throw core::Error(tmp + ": " + what + ": " + std::strerror(err));
  };
  if (::fchmod(fd.get(), 0644) != 0) fail("cannot set permissions", errno);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t got = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("write failed", errno);
    done += static_cast<size_t>(got);
  }
  if (const int err = fd.close_checked()) fail("write failed", err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw core::Error(path + ": cannot rename from " + tmp + ": " + std::strerror(err));
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
    // Also what f16 cannot hold: it would become an infinity, and the loader refuses both.
    const float limit = dtype == DType::kF32 ? std::numeric_limits<float>::max() : 65504.0f;
    for (size_t i = 0; i < t.values.size(); ++i) {
      if (!(std::fabs(t.values[i]) <= limit)) {
        throw core::Error("tensor '" + t.name + "': value " + std::to_string(t.values[i]) + " at index " +
                          std::to_string(i) + " is not finite" + (dtype == DType::kF16 ? " in f16" : "") +
                          ": refusing to write a model that would translate nothing");
      }
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
