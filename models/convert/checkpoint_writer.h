// Writes checkpoint format v1 (used by `nmt convert` and by tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/checkpoint.h"
#include "models/model_config.h"

namespace models {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;  // product(shape) values, row-major
  // In an i8 checkpoint: the int8 values and row scales to write (a source that fixes its own
  // quantization, Marian's intgemm8) instead of quantizing `values` row by row; or stay f32 (keep_f32).
  std::vector<int8_t> int8{};
  std::vector<float> int8_scales{};
  float int8_multiplier = 0.0f;  // with int8: intgemm's mB for every row, written as NAME.weight_multiplier
  bool keep_f32 = false;
};

// Writes DIR/weights.bin and DIR/model.json (each with core::write_file_atomically; model.json last, so a
// directory with model.json always has its complete blob). DIR must exist. Tokenizer files are the
// caller's job. dtype kI8: int8_quantizable tensors as i8 with their scales (NamedTensor::int8 where
// given), the rest and keep_f32 ones f32. Throws
// core::Error on I/O failure.
void write_checkpoint(const std::string& dir, const ModelDescription& description,
                      const std::vector<NamedTensor>& tensors, DType dtype);

}  // namespace models
