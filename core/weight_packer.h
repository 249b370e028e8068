// The f32 and f16 weights of linear layers, put in the form this CPU's products use. core/cpu makes the
// choice: panels for the packed kernels (core/packed_gemm.h), else plain f32 rows for OpenBLAS
// (core/gemm.h). Callers describe how to read their weights and multiply with what comes back, never
// asking which kernel runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/packed_gemm.h"

namespace core {

// A weight matrix W [rows, in] as its file stores it, row-major.
struct StoredWeights {
  int rows = 0;
  bool f16 = false;  // IEEE f16, else f32
  // Rows [first, first + n) as stored, into dst (n * in elements): what packing reads.
  std::function<void(int first, int n, void* dst)> read_rows;
  // Every row as f32 [rows, in], kept by the caller as long as the weights are used: what BLAS reads.
  std::function<const float*()> f32_rows;
};

// W in one of the two forms: exactly one pointer is set.
struct F32Weights {
  const float* rows = nullptr;           // [out, in] row-major, for core::linear
  const PackedMatrix* packed = nullptr;  // panels, for core::packed_linear
};

class WeightPacker {
 public:
  // Packed matrices are allocated from `arena` and owned by `owner`; both outlive their use.
  WeightPacker(PackedArena& arena, std::vector<std::unique_ptr<PackedMatrix>>& owner);

  F32Weights prepare(const StoredWeights& w, int in);
  // Blocks stacked into one product [sum of rows, in] (one call over all the columns, e.g. q, k and v),
  // each block served alone by a view of its columns: when the products are packed and every block fills
  // whole panels. Then returns the stacked matrix; otherwise each block is prepared alone and the
  // stacked form is empty. `each` receives one entry per block either way.
  F32Weights prepare_stacked(const std::vector<StoredWeights>& blocks, int in, std::vector<F32Weights>& each);

 private:
  const PackedMatrix* pack(const std::vector<const StoredWeights*>& blocks, int in);

  PackedArena& arena_;
  std::vector<std::unique_ptr<PackedMatrix>>& owner_;
  const bool packs_;             // this CPU's f32 products run on the packed kernels
  std::vector<uint8_t> buffer_;  // what pack() reads rows into
};

}  // namespace core
