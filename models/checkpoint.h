// Checkpoint format v1 (docs/checkpoint.md): model.json + one blob of aligned tensors.
// Everything is validated at open, before any weight is used.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/unique_fd.h"
#include "models/model_config.h"

namespace models {

// kI8: int8 weights of a linear layer or an embedding, [rows, in], with a tensor NAME.scales (f32, [rows]):
// row r is q[r] * scales[r]. Written for every tensor int8_quantizable names; everything else stays f32.
enum class DType { kF32, kF16, kI8 };
const char* dtype_name(DType dtype);
// Linear weights and embeddings: the tensors an int8 checkpoint stores as i8.
bool int8_quantizable(const std::string& name);
// NAME + this: the fixed input multiplier of the product by i8 weight NAME (config.int8_scheme intgemm*).
inline constexpr const char kInputMultiplierSuffix[] = ".input_multiplier";
// intgemm's own weight multiplier mB of an i8 tensor converted from Marian (docs/checkpoint.md).
inline constexpr const char kWeightMultiplierSuffix[] = ".weight_multiplier";

struct TensorEntry {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

class Checkpoint {
 public:
  // Opens DIR/model.json and its blob and checks the blob against model.json's crc32; throws ModelError
  // naming the file and the problem.
  explicit Checkpoint(const std::string& dir);
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& json_path() const { return json_path_; }
  const ModelDescription& description() const { return description_; }
  const std::vector<TensorEntry>& tensors() const { return tensors_; }
  uint64_t blob_size() const { return blob_size_; }
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  // The entry named so, or null; does not mark it as used.
  const TensorEntry* find(const std::string& name) const;
  // f32 data of a tensor with exactly this shape, read into memory the checkpoint owns (f16 converted) once
  // and kept, so nothing later depends on the file. Throws ModelError if absent, of another shape, or i8, or
  // if the read fails. Marks the tensor as used.
  const float* get(const std::string& name, const std::vector<int64_t>& shape);
  // The entry of a tensor with exactly this shape, for read() (same checks as get(); marks it as used).
  const TensorEntry& entry(const std::string& name, const std::vector<int64_t>& shape);
  // An i8 tensor [rows, in] with exactly this shape and its scales (NAME.scales, [rows], each finite and
  // positive, returned), for read(). Throws ModelError naming the problem. Marks both as used.
  const TensorEntry& int8_entry(const std::string& name, const std::vector<int64_t>& shape,
                                const float** scales);
  // Bytes [offset, offset + n) of a tensor's stored data (f32, IEEE f16 or int8, row-major) into dst, with
  // pread: a copy from the page cache, where reading through a mapping maps every page, a page-table
  // change each that virtual machines make dear, and leaves the process at the mercy of the file (SIGBUS
  // once it is truncated). Throws ModelError naming the file if the read fails.
  void read(const TensorEntry& t, uint64_t offset, uint64_t n, void* dst) const;
  // Throws ModelError naming the tensor if `n` bytes of its data (whole numbers, as read()) hold a NaN or
  // an infinity. get() checks what it returns; whoever read()s weights checks them so.
  void check_finite(const TensorEntry& t, const void* data, uint64_t n) const;
  // Throws if some tensor was never asked for: an unexpected name means a model we don't understand.
  void check_all_used() const;

 private:
  void parse_tensor_table(const nlohmann::json& table);
  void open_blob(const std::string& file, uint64_t size, const std::string& crc_hex);

  std::string dir_;
  std::string json_path_;
  std::string blob_path_;
  ModelDescription description_;
  std::vector<TensorEntry> tensors_;
  std::map<std::string, size_t> index_;
  std::set<std::string> used_;
  std::map<std::string, std::vector<float>> converted_;  // what get() returned, as f32
  core::UniqueFd blob_fd_;                               // for read()
  uint64_t blob_size_ = 0;
};

std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace models
