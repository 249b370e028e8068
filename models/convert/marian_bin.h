// Marian's binary model format (model.bin, as marian-conv writes it): a version word, a table of item
// headers (name length, type, shape length, data length, each a little-endian uint64), the names
// (NUL-terminated), the shapes (int32 dimensions), padding to a 256-byte boundary, then each item's data.
// Read strictly: every count and length is checked against the file before anything is allocated.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/unique_fd.h"
#include "models/convert/npz.h"

namespace models {

// Whether `path` starts like a Marian binary model (version 1 and a plausible item count).
bool looks_like_marian_bin(const std::string& path);

class MarianBinFile {
 public:
  // Opens the file (a regular file only: a FIFO or device is refused) and checks the header; throws
  // ModelError naming the file (and the item).
  explicit MarianBinFile(const std::string& path);

  const std::string& path() const { return path_; }
  std::vector<std::string> names() const;  // sorted
  bool has(const std::string& name) const { return items_.count(name) != 0; }
  // One item as an array: float32 -> '<f4', float16 -> '<f2', int8 and intgemm8 -> '|i1', uint8 -> '|u1'.
  NpyArray read(const std::string& name) const;
  // An intgemm8 item (marian-conv --gemm-type intgemm8): int8 values quantized by one multiplier for the
  // whole matrix, stored after them. A weight [in, out] is stored transposed, [out, in] row-major, under
  // its [in, out] shape; an embedding (a name with "Wemb") as it is.
  bool intgemm8(const std::string& name) const;
  float intgemm8_multiplier(const std::string& name) const;  // finite and positive, else ModelError

 private:
  struct Item {
    NpyDType dtype = NpyDType::kF32;
    std::vector<int64_t> shape;
    uint64_t offset = 0;  // of the item's data in the file
    uint64_t bytes = 0;   // product(shape) * itemsize; the stored length may add padding
    bool intgemm8 = false;
  };
  const Item& item(const std::string& name) const;
  std::string path_;
  core::UniqueFd fd_;  // kept open: read() takes each item with pread
  std::map<std::string, Item> items_;
};

}  // namespace models
