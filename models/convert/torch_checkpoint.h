// pytorch_model.bin, read without Python: a state dict of f32/f16/bf16 tensors in either serialization
// torch.save writes. The zip format (torch >= 1.6) holds ARCHIVE/data.pkl and one member ARCHIVE/data/KEY
// per storage; the legacy format is five pickles (magic number, protocol version, system info, the state
// dict, the storage keys) followed by each storage as an 8-byte little-endian element count and its bytes.
// The pickles go through the restricted unpickler (pickle_reader.h), which executes nothing.
#pragma once

#include <cstdint>
#include <string>

#include "models/convert/tensor_source.h"

namespace models {

class TorchCheckpoint : public TensorSource {
 public:
  // Reads every storage the state dict refers to and checks each tensor against its storage: contiguous
  // strides, offset + product(shape) within the storage. Storage sizes are checked against the archive
  // member or the bytes left in the file before they are read. Throws ModelError naming the file.
  explicit TorchCheckpoint(const std::string& path);

 private:
  void read_zip(int fd, uint64_t file_bytes);
  void read_legacy(std::string file);

  std::string data_;  // the storages' bytes (zip), or the whole file (legacy)
};

// True when `head` (a file's first bytes) starts a zip archive or a pickle: what torch.save writes.
bool looks_like_torch_checkpoint(const std::string& head);

}  // namespace models
