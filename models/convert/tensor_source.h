// A checkpoint's named tensors, whichever file holds them (model.safetensors, pytorch_model.bin): what the
// Hugging Face MarianMT converter takes. Each reader validates its file at open and fills the table.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace models {

enum class SourceDType { kF32, kF16, kBF16 };

const char* source_dtype_name(SourceDType dtype);  // "F32", "F16", "BF16"
int source_itemsize(SourceDType dtype);

struct SourceTensor {
  std::string name;
  SourceDType dtype = SourceDType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the reader's data; tensors sharing storage may overlap
  uint64_t end = 0;
};

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  TensorSource(const TensorSource&) = delete;
  TensorSource& operator=(const TensorSource&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<SourceTensor>& tensors() const { return tensors_; }  // sorted by name
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  const SourceTensor& tensor(const std::string& name) const;  // throws ModelError if absent

  // The tensor's values as f32 (F16 and BF16 are widened exactly).
  std::vector<float> read_f32(const std::string& name) const;
  // The tensor's raw bytes.
  const uint8_t* raw(const std::string& name, uint64_t* nbytes) const;

 protected:
  explicit TensorSource(std::string path) : path_(std::move(path)) {}
  // Takes the table; each tensor's [begin, end) must lie in `data` and span product(shape) * itemsize.
  void set_tensors(std::vector<SourceTensor> tensors, const uint8_t* data);
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  std::vector<SourceTensor> tensors_;
  std::map<std::string, size_t> index_;
};

// model.safetensors or pytorch_model.bin (either torch serialization), told apart by their first bytes.
// Throws ModelError naming the file.
std::unique_ptr<TensorSource> open_tensor_source(const std::string& path);

}  // namespace models
