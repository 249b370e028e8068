#include "models/convert/checkpoint_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/half.h"
#include "core/int8_gemm.h"
#include "models/blob_crc32.h"

namespace models {

namespace {

// Appends one tensor to the blob (64-byte aligned) and its entry to the table.
void append_tensor(std::string& blob, nlohmann::json& table, const std::string& name,
                   const std::vector<int64_t>& shape, DType dtype, const void* data, size_t bytes) {
  blob.resize((blob.size() + 63) / 64 * 64, '\0');
  const uint64_t offset = blob.size();
  blob.append(static_cast<const char*>(data), bytes);
  table.push_back({{"name", name},
                   {"dtype", dtype_name(dtype)},
                   {"shape", shape},
                   {"offset", offset},
                   {"nbytes", bytes}});
}

// An i8 tensor and its NAME.scales, quantized row by row as the kernels quantize (core/int8_gemm.h).
void append_int8(std::string& blob, nlohmann::json& table, const NamedTensor& t) {
  const int rows = static_cast<int>(t.shape[0]);
  const int in = static_cast<int>(t.values.size() / static_cast<size_t>(rows));
  std::vector<int8_t> q = t.int8;
  std::vector<float> scales = t.int8_scales;
  if (q.empty()) {
    q.resize(t.values.size());
    scales.resize(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      const size_t at = static_cast<size_t>(r) * in;
      scales[r] = core::quantize_row(t.values.data() + at, in, q.data() + at);
    }
  } else if (q.size() != t.values.size() || scales.size() != static_cast<size_t>(rows)) {
    throw core::Error("tensor '" + t.name + "': int8 values or scales do not fill shape " +
                      shape_to_string(t.shape));
  }
  append_tensor(blob, table, t.name, t.shape, DType::kI8, q.data(), q.size());
  append_tensor(blob, table, t.name + ".scales", {rows}, DType::kF32, scales.data(),
                scales.size() * sizeof(float));
  if (t.int8_multiplier > 0.0f && !t.int8.empty()) {
    append_tensor(blob, table, t.name + kWeightMultiplierSuffix, {1}, DType::kF32, &t.int8_multiplier,
                  sizeof(float));
  }
}

}  // namespace

void write_checkpoint(const std::string& dir, const ModelDescription& description,
                      const std::vector<NamedTensor>& tensors, DType dtype) {
  std::string blob;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& t : tensors) {
    uint64_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
    if (elements != t.values.size()) {
      throw core::Error("tensor '" + t.name + "': " + std::to_string(t.values.size()) +
                        " values do not fill shape " + shape_to_string(t.shape));
    }
    // Also what f16 cannot hold: it would become an infinity, and the loader refuses both.
    const float limit = dtype == DType::kF16 ? 65504.0f : std::numeric_limits<float>::max();
    for (size_t i = 0; i < t.values.size(); ++i) {
      if (!(std::fabs(t.values[i]) <= limit)) {
        throw core::Error("tensor '" + t.name + "': value " + std::to_string(t.values[i]) + " at index " +
                          std::to_string(i) + " is not finite" + (dtype == DType::kF16 ? " in f16" : "") +
                          ": refusing to write a model that would translate nothing");
      }
    }
    if (dtype == DType::kI8 && t.shape.size() == 2 && int8_quantizable(t.name) && !t.keep_f32) {
      append_int8(blob, table, t);
    } else if (dtype == DType::kF16) {
      std::vector<uint16_t> half(t.values.size());
      for (size_t i = 0; i < half.size(); ++i) half[i] = core::float_to_half(t.values[i]);
      append_tensor(blob, table, t.name, t.shape, DType::kF16, half.data(), half.size() * sizeof(uint16_t));
    } else {
      append_tensor(blob, table, t.name, t.shape, DType::kF32, t.values.data(),
                    t.values.size() * sizeof(float));
    }
  }
  const uint32_t crc = blob_crc32(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));

  nlohmann::json meta = description_to_json(description);
  meta["format"] = "nmt-checkpoint";
  meta["version"] = 1;
  meta["weights"] = {{"file", "weights.bin"}, {"size", blob.size()}, {"crc32", hex}};
  meta["tensors"] = table;
  core::write_file_atomically(dir + "/weights.bin", blob);
  core::write_file_atomically(dir + "/model.json", meta.dump(1) + "\n");
}

}  // namespace models
