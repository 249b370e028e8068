// NumPy .npz archives (a zip of .npy arrays, as native Marian writes its models), read with libzip.
// Each .npy is parsed strictly: magic, version 1/2/3, a header dict with exactly 'descr',
// 'fortran_order' (must be False) and 'shape', and exactly product(shape) * itemsize data bytes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

struct zip;

namespace models {

enum class NpyDType { kF32, kF16, kI8, kU8 };

const char* npy_dtype_name(NpyDType dtype);  // "<f4", "<f2", "|i1", "|u1"

struct NpyHeader {
  NpyDType dtype = NpyDType::kF32;
  std::vector<int64_t> shape;
  size_t data_offset = 0;  // where the data starts in the .npy bytes
};

struct NpyArray {
  NpyDType dtype = NpyDType::kF32;
  std::vector<int64_t> shape;
  std::string data;  // raw little-endian bytes, product(shape) * itemsize of them

  uint64_t elements() const;
  std::vector<float> to_f32() const;  // f32/f16 arrays only (throws std::logic_error otherwise)
};

// Parses a .npy preamble; `bytes` is the whole .npy content (the data size is checked against the shape).
// Throws ModelError("WHERE: problem").
NpyHeader parse_npy_header(const std::string& bytes, const std::string& where);
NpyArray parse_npy(std::string bytes, const std::string& where);
// The same checks on the first bytes of a .npy of `total_size` bytes (the header must lie in `bytes`).
NpyHeader parse_npy_preamble(const std::string& bytes, uint64_t total_size, const std::string& where);

class NpzFile {
 public:
  // Opens the archive and lists its members; every member must be NAME.npy (names unique).
  // Throws ModelError naming the file.
  explicit NpzFile(const std::string& path);
  ~NpzFile();
  NpzFile(const NpzFile&) = delete;
  NpzFile& operator=(const NpzFile&) = delete;

  const std::string& path() const { return path_; }
  std::vector<std::string> names() const;  // member names without ".npy", sorted
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  // Decompresses and parses one member. Throws ModelError ("PATH: NAME.npy: problem").
  NpyArray read(const std::string& name) const;

 private:
  std::string path_;
  ::zip* zip_ = nullptr;
  uint64_t archive_size_ = 0;              // bytes of the .npz file, the bound on what its members can hold
  std::map<std::string, uint64_t> index_;  // name -> libzip entry index
};

}  // namespace models
