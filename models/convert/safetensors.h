// Reader for the safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data buffer; offsets are relative to the buffer. Everything is validated at open.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "models/convert/tensor_source.h"

namespace models {

class SafetensorsFile : public TensorSource {
 public:
  // Maps the file and checks the header: JSON object, known keys only, supported dtypes (F32, F16, BF16;
  // any other dtype is refused by name), non-negative shapes, offsets inside the buffer with
  // end - begin == product(shape) * itemsize, no two tensors overlapping. Throws ModelError
  // ("PATH: problem") otherwise.
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile() override;

  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  std::vector<SourceTensor> parse_header(const std::string& header, uint64_t data_size);

  const uint8_t* map_ = nullptr;
  uint64_t map_size_ = 0;
  std::map<std::string, std::string> metadata_;
};

}  // namespace models
