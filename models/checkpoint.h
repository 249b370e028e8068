// Checkpoint format v1 (docs/checkpoint.md): model.json + one memory-mapped blob of aligned tensors.
// Everything is validated at open, before any weight is used.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/model_config.h"

namespace models {

enum class DType { kF32, kF16 };

struct TensorEntry {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

class Checkpoint {
 public:
  // Opens DIR/model.json and its blob; throws ModelError naming the file and the problem.
  explicit Checkpoint(const std::string& dir);
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& json_path() const { return json_path_; }
  const ModelDescription& description() const { return description_; }
  const std::vector<TensorEntry>& tensors() const { return tensors_; }
  uint64_t blob_size() const { return blob_size_; }

  bool has(const std::string& name) const { return index_.count(name) != 0; }
  // f32 data of a tensor with exactly this shape (f16 is converted once and kept; small f32 ones copied).
  // Throws ModelError if absent or of another shape. Marks the tensor as used.
  const float* get(const std::string& name, const std::vector<int64_t>& shape);
  // The stored bytes of a tensor with exactly this shape, without conversion (same checks as get()).
  struct RawTensor {
    DType dtype;
    const void* data;  // f32 or IEEE f16 values, row-major
  };
  RawTensor raw(const std::string& name, const std::vector<int64_t>& shape);
  // Throws if some tensor was never asked for: an unexpected name means a model we don't understand.
  void check_all_used() const;
  // Lets the kernel drop the resident pages of [data, data + bytes) if that lies in the blob (e.g. a tensor
  // that was just repacked), on large blobs only: there the pages read so far would add to the packed copy's
  // peak, while each call costs a TLB shootdown on every core (100-300 us on a VM; ~50 of them were ~10 ms
  // of the bundled model's load). What is read again comes back from the page cache on first touch.
  void drop_resident_pages(const void* data, size_t bytes) const;
  // Every resident page of the blob, whatever its size: once, when loading is over.
  void drop_all_resident_pages() const;

 private:
  void drop_pages(const void* data, size_t bytes) const;  // the madvise, unconditionally
  void parse_tensor_table(const nlohmann::json& table);
  void map_blob(const std::string& file, uint64_t size, const std::string& crc_hex);
  const TensorEntry& find(const std::string& name, const std::vector<int64_t>& shape);

  std::string dir_;
  std::string json_path_;
  std::string blob_path_;
  ModelDescription description_;
  std::vector<TensorEntry> tensors_;
  std::map<std::string, size_t> index_;
  std::set<std::string> used_;
  std::map<std::string, std::vector<float>> converted_;  // f16 tensors as f32, copies of small f32 ones
  const uint8_t* blob_ = nullptr;
  uint64_t blob_size_ = 0;
};

std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace models
