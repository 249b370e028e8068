// Reader for the safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data buffer; offsets are relative to the buffer. Everything is validated at open.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace models {

enum class SafetensorsDType { kF32, kF16, kBF16 };

struct SafetensorsTensor {
  std::string name;
  SafetensorsDType dtype = SafetensorsDType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data buffer
  uint64_t end = 0;
};

const char* safetensors_dtype_name(SafetensorsDType dtype);

class SafetensorsFile {
 public:
  // Maps the file and checks the header: JSON object, known keys only, supported dtypes (F32, F16, BF16;
  // any other dtype is refused by name), non-negative shapes, offsets inside the buffer with
  // end - begin == product(shape) * itemsize, no two tensors overlapping. Throws ModelError
  // ("PATH: problem") otherwise.
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  const SafetensorsTensor& tensor(const std::string& name) const;  // throws ModelError if absent

  // The tensor's values as f32 (F16 and BF16 are widened exactly).
  std::vector<float> read_f32(const std::string& name) const;
  // The tensor's raw bytes (for comparing tied duplicates).
  const uint8_t* raw(const std::string& name, uint64_t* nbytes) const;

 private:
  [[noreturn]] void fail(const std::string& problem) const;
  void parse_header(const std::string& header, uint64_t data_size);

  std::string path_;
  const uint8_t* map_ = nullptr;
  uint64_t map_size_ = 0;
  const uint8_t* data_ = nullptr;  // start of the data buffer inside the mapping
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace models
