// Zip archives written from members in memory, for the tests that build .npz files, zip-format
// pytorch_model.bin files and model packages byte by byte.
#pragma once

#include <zip.h>

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace test {

using ZipMembers = std::vector<std::pair<std::string, std::string>>;  // (name, bytes), in archive order

// Writes `members` to a zip at `path`, each compressed with `method`: ZIP_CM_STORE as torch.save
// writes them, ZIP_CM_DEFAULT (deflate) as numpy.savez_compressed and release packages do.
inline void write_zip(const std::string& path, const ZipMembers& members,
                      zip_int32_t method = ZIP_CM_DEFAULT) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z != nullptr);
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    REQUIRE(src != nullptr);
    const zip_int64_t index = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    REQUIRE(index >= 0);
    REQUIRE(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), method, 0) == 0);
  }
  REQUIRE(zip_close(z) == 0);
}

}  // namespace test
