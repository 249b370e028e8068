// int8_linear: activations quantized (per row unless the matrix says otherwise), then column blocks x row
// tiles over the team's threads.
#include "core/int8_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/int8_kernels.h"
#include "core/thread_team.h"

namespace core {

namespace {

constexpr int kMaxTileRows = int8::kAvx512Rows;
constexpr int kMaxTileColumns = 2 * Int8Matrix::kPanel;

// The portable tile: the same products as the vector ones, in plain C++.
void tile_portable(const int8_t* a, size_t lda, int rows, int groups, const int8_t* p0, int32_t* acc,
                   size_t acc_stride) {
  constexpr int kPanel = Int8Matrix::kPanel, kGroup = Int8Matrix::kGroup;
  for (int r = 0; r < rows; ++r) {
    int32_t sums[kPanel] = {};
    const int8_t* x = a + r * lda;
    for (int g = 0; g < groups; ++g) {
      const int8_t* b = p0 + static_cast<size_t>(g) * kPanel * kGroup;
      for (int j = 0; j < kPanel; ++j)
        for (int t = 0; t < kGroup; ++t) sums[j] += int32_t{x[g * kGroup + t]} * b[j * kGroup + t];
    }
    std::copy(sums, sums + kPanel, acc + r * acc_stride);
  }
}

// Weights per column block: a block stays in the L2 cache while every row tile runs over it, so a tile
// writes its outputs in runs of a block's width per row rather than 128-byte pieces scattered over the
// whole output (the logits are 30 MB at 128 rows x 58k columns).
constexpr size_t kBlockBytes = size_t{256} << 10;

// How one call runs: the kernel, its tile, and the units (column block x row tile, block-major) the threads
// share.
struct Plan {
  Plan(const Int8Matrix& w, int rows, Int8Kernel kernel)
      : kernel(kernel),
        tile_rows(kernel == Int8Kernel::kAvx512Vnni ? int8::kAvx512Rows
                  : kernel == Int8Kernel::kAvx2     ? int8::kAvx2Rows
                                                    : 4),
        panel_step(kernel == Int8Kernel::kAvx512Vnni ? 2 : 1),
        tiles((rows + tile_rows - 1) / tile_rows),
        steps((w.panels() + panel_step - 1) / panel_step),
        steps_per_block(std::max<int>(1, static_cast<int>(kBlockBytes / (panel_step * w.panel_bytes())))),
        blocks((steps + steps_per_block - 1) / steps_per_block),
        rows(rows) {}
  Int8Kernel kernel;
  int tile_rows, panel_step, tiles, steps, steps_per_block, blocks, rows;
};

// Where int8_linear's floats go; null for the raw products.
struct Dequantize {
  float* y;
  const float* row_scales;
  const float* col_scales;
  const float* bias;
};

// Runs units [begin, end) over a: the quantized rows, groups * 4 bytes each (u8 = x + 128 for VNNI),
// or for AVX2 wide: the same rows widened to int16.
// With dq, the vector kernels write y; else (and always for the portable one) finish(r, n, col, cols, acc,
// stride) takes each tile's exact products.
template <class Finish>
void run_units(const Plan& plan, const int8_t* a, const int16_t* wide, const Int8Matrix& w,
               const Dequantize* dq, int begin, int end, const Finish& finish) {
  const size_t lda = static_cast<size_t>(w.groups()) * Int8Matrix::kGroup;
  int32_t acc[kMaxTileRows * kMaxTileColumns];
  for (int u = begin; u < end; ++u) {
    const int block = u / plan.tiles, t = u % plan.tiles;
    const int r = t * plan.tile_rows, n = std::min(plan.tile_rows, plan.rows - r);
    const int8_t* rows = a + r * lda;
    const bool stream = t == 0 || u == begin;  // the first pass over this block's panels here
    const int step_end = std::min(plan.steps, (block + 1) * plan.steps_per_block);
    for (int step = block * plan.steps_per_block; step < step_end; ++step) {
      const int p = step * plan.panel_step;
      const int col = p * Int8Matrix::kPanel;
      const int cols = std::min(plan.panel_step * Int8Matrix::kPanel, w.out() - col);
      int8::TileOut out;
      out.cols = cols;
      if (dq) {
        out.y = dq->y + static_cast<size_t>(r) * w.out() + col;
        out.ldy = static_cast<size_t>(w.out());
        out.row_scales = dq->row_scales + r;
        out.col_scales = dq->col_scales + col;
        out.bias = dq->bias ? dq->bias + col : nullptr;
      } else {
        out.acc = acc;
        out.acc_stride = kMaxTileColumns;
      }
      switch (plan.kernel) {
        case Int8Kernel::kAvx512Vnni:
          int8::tile_avx512_vnni(reinterpret_cast<const uint8_t*>(rows), lda, n, w.groups(), w.panel(p),
                                 p + 1 < w.panels() ? w.panel(p + 1) : nullptr, stream, w.column_sums() + col,
                                 out);
          break;
        case Int8Kernel::kAvx2:
          int8::tile_avx2(wide + r * lda, lda, n, w.groups(), w.panel(p), out);
          break;
        default:
          tile_portable(rows, lda, n, w.groups(), w.panel(p), acc, kMaxTileColumns);
      }
      if (dq && plan.kernel != Int8Kernel::kPortable) continue;
      finish(r, n, col, cols, acc, kMaxTileColumns);
    }
  }
}

void widen(const int8_t* row, size_t n, int16_t* wide) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) wide[i] = row[i];
}

void shift_to_u8(int8_t* row, size_t n) {
  for (size_t i = 0; i < n; ++i) row[i] = static_cast<int8_t>(static_cast<uint8_t>(row[i]) ^ 0x80u);
}

// y = fma(float(acc + offset), u, bias): intgemm's result with a bias, float(acc) * u + bias, or shifted
// float(acc + 127 colsum) * u + bias. Its accumulator holds acc + 127 colsum exactly (an int32: |x + 127| <=
// 254, so room for any layer width below 66,000), converted once; and its compiled callback (one for both
// forms) rounds once: GCC fuses the multiply and the add. Inlined into the FMA-target copy this becomes FMA
// instructions; the plain copy calls std::fma: the same bits, more slowly, for CPUs without FMA.
using FinishIntgemm = void (*)(const int32_t*, const int32_t*, const float*, const float*, int, float*);

inline void finish_intgemm(const int32_t* acc, const int32_t* offsets, const float* u, const float* bias,
                           int n, float* y) {
#pragma omp simd
  for (int j = 0; j < n; ++j) y[j] = std::fma(static_cast<float>(acc[j] + offsets[j]), u[j], bias[j]);
}

__attribute__((target("fma"))) void finish_intgemm_fma(const int32_t* acc, const int32_t* offsets,
                                                       const float* u, const float* bias, int n, float* y) {
  finish_intgemm(acc, offsets, u, bias, n, y);
}

size_t padded_row_bytes(int in) {
  return static_cast<size_t>((in + Int8Matrix::kGroup - 1) / Int8Matrix::kGroup) * Int8Matrix::kGroup;
}

QuantizedRows& scratch() {
  thread_local QuantizedRows rows;  // grows to the largest call once, then reused
  return rows;
}

}  // namespace

void QuantizedRows::reserve(int max_rows, int in) {
  const size_t bytes = static_cast<size_t>(max_rows) * padded_row_bytes(in);
  data_.reserve(bytes);
  if (int8_kernel() == Int8Kernel::kAvx2) wide_.reserve(bytes);
  scales_.reserve(static_cast<size_t>(max_rows));
}

namespace {

// The multiplier every row of x[rows, in] shares under `scaling`, 0 for per row: 127 / max|x| over all
// the rows, or the fixed one.
float shared_multiplier(const float* x, int rows, int in, const Int8InputScaling& scaling) {
  if (scaling.kind == Int8InputScaling::Kind::kFixed) return scaling.multiplier;
  if (scaling.kind == Int8InputScaling::Kind::kPerRow) return 0.0f;
  float amax = 0.0f;
  const size_t n = static_cast<size_t>(rows) * in;
#pragma omp simd reduction(max : amax)
  for (size_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  return amax == 0.0f ? 127.0f : 127.0f / amax;
}

}  // namespace

// The kernel's input rows: quantized, zero-padded to whole groups, and for VNNI shifted to u8
// (x ^ 0x80 == x + 128); for AVX2 also widened.
void QuantizedRows::quantize(const float* x, int rows, int in, const Int8InputScaling& scaling) {
  kernel_ = int8_kernel();
  rows_ = rows;
  in_ = in;
  lda_ = padded_row_bytes(in);
  data_.resize(static_cast<size_t>(rows) * lda_);
  scales_.resize(static_cast<size_t>(rows));
  const bool vnni = kernel_ == Int8Kernel::kAvx512Vnni, avx2 = kernel_ == Int8Kernel::kAvx2;
  if (avx2) wide_.resize(data_.size());
  int8_t* data = data_.data();  // by pointer: the team's other threads fill their rows
  int16_t* wide = wide_.data();
  float* scales = scales_.data();
  const size_t lda = lda_;
  const float multiplier = shared_multiplier(x, rows, in, scaling);
  multiplier_ = multiplier;
  shifted_ = multiplier > 0.0f && scaling.shifted;
  split_range(rows, 1, [&](int begin, int end, int) {
    for (int r = begin; r < end; ++r) {
      int8_t* row = data + r * lda;
      const float* xr = x + static_cast<size_t>(r) * in;
      if (vnni) {
        uint8_t* u = reinterpret_cast<uint8_t*>(row);
        if (multiplier > 0.0f) {
          int8::quantize_row_by_u8_avx512(xr, in, multiplier, static_cast<int>(lda), u);
          scales[r] = 1.0f / multiplier;
        } else {
          scales[r] = int8::quantize_row_u8_avx512(xr, in, static_cast<int>(lda), u);
        }
        continue;
      }
      if (multiplier > 0.0f) {
        quantize_row_by(xr, in, multiplier, row);
        scales[r] = 1.0f / multiplier;
      } else {
        scales[r] = quantize_row(xr, in, row);
      }
      std::memset(row + in, 0, lda - in);
      if (avx2) widen(row, lda, wide + r * lda);
    }
  });
}

void int8_linear(const float* x, int rows, const Int8Matrix& w, const float* bias, float* y) {
  if (rows <= 0) return;
  QuantizedRows& q = scratch();
  q.quantize(x, rows, w.in(), w.input_scaling());
  int8_linear(q, 0, rows, w, bias, y);
}

void int8_linear(const QuantizedRows& x, int first_row, int rows, const Int8Matrix& w, const float* bias,
                 float* y) {
  if (rows <= 0) return;
  if (x.kernel_ != int8_kernel() || x.in_ != w.in() || first_row < 0 || first_row + rows > x.rows_)
    throw std::logic_error("int8_linear: rows quantized for another kernel, input size or row count");
  const GemmTimer timer(2.0 * rows * w.out() * w.in(), team_size());
  const Plan plan(w, rows, x.kernel_);
  const int out = w.out();
  const size_t lda = x.lda_;
  const int8_t* data = x.data_.data() + first_row * lda;
  const int16_t* wide = x.kernel_ == Int8Kernel::kAvx2 ? x.wide_.data() + first_row * lda : nullptr;
  const float* scales = x.scales_.data() + first_row;
  const float* w_scales = w.scales();
  // intgemm with a bias: added to the products before the fused finish, 127 * colsum per column when
  // shifted, else 0.
  const int32_t* offsets = nullptr;
  if (x.multiplier_ > 0.0f) {
    // intgemm's arithmetic (Int8InputScaling): one factor per column, u, times a row scale of 1.
    thread_local std::vector<float> ones, columns, shifted_bias;
    thread_local std::vector<int32_t> column_offsets;
    ones.assign(static_cast<size_t>(rows), 1.0f);
    const size_t padded = static_cast<size_t>(w.panels()) * Int8Matrix::kPanel;
    columns.assign(padded, 0.0f);
    const float ma = x.multiplier_;
    if (x.shifted_) shifted_bias.assign(padded, 0.0f);
    if (x.shifted_ || bias) column_offsets.assign(padded, 0);
    const int32_t* sums = w.column_sums();
    const float* multipliers = w.multipliers();
    for (int j = 0; j < out; ++j) {
      const float mb = multipliers ? multipliers[j] : 1.0f / w_scales[j];
      columns[j] = 1.0f / (ma * mb);
      if (!x.shifted_) continue;
      // intgemm's PrepareBias: the same callback as the product's, so one rounding with a bias.
      const float per_sum = -((127.0f / ma) * (127.0f / mb)) / 127.0f;
      const float sum = static_cast<float>(sums[j]);
      shifted_bias[j] = bias ? std::fma(sum, per_sum, bias[j]) : sum * per_sum;
      column_offsets[j] = 127 * sums[j];
    }
    if (x.shifted_) bias = shifted_bias.data();
    if (x.shifted_ || bias) offsets = column_offsets.data();
    scales = ones.data();
    w_scales = columns.data();
  }
  // intgemm's finish with a bias is no kernel epilogue: the tiles' exact products are finished below.
  const FinishIntgemm finish_intgemm_rows = fma_copies() ? finish_intgemm_fma : finish_intgemm;
  const Dequantize dq{y, scales, w_scales, bias};
  const Dequantize* fused = offsets ? nullptr : &dq;
  split_range(plan.blocks * plan.tiles, 1, [&](int begin, int end, int) {
    run_units(plan, data, wide, w, fused, begin, end,
              [&](int r0, int n, int col, int cols, const int32_t* acc, size_t stride) {
                for (int r = 0; r < n; ++r) {
                  const float row_scale = scales[r0 + r];
                  float* yr = y + static_cast<size_t>(r0 + r) * out + col;
                  const int32_t* ar = acc + r * stride;
                  if (offsets) {
                    finish_intgemm_rows(ar, offsets + col, w_scales + col, bias + col, cols, yr);
                  } else if (bias) {
#pragma omp simd
                    for (int j = 0; j < cols; ++j)
                      yr[j] = static_cast<float>(ar[j]) * (row_scale * w_scales[col + j]) + bias[col + j];
                  } else {
#pragma omp simd
                    for (int j = 0; j < cols; ++j)
                      yr[j] = static_cast<float>(ar[j]) * (row_scale * w_scales[col + j]);
                  }
                }
              });
  });
}

void int8_products(const int8_t* q, int rows, const Int8Matrix& w, int32_t* acc) {
  if (rows <= 0) return;
  const Plan plan(w, rows, int8_kernel());
  const int in = w.in(), out = w.out();
  const size_t lda = static_cast<size_t>(w.groups()) * Int8Matrix::kGroup;
  std::vector<int8_t> data(static_cast<size_t>(rows) * lda, 0);
  std::vector<int16_t> wide(plan.kernel == Int8Kernel::kAvx2 ? data.size() : 0);
  for (int r = 0; r < rows; ++r) {
    std::memcpy(data.data() + r * lda, q + static_cast<size_t>(r) * in, static_cast<size_t>(in));
    if (plan.kernel == Int8Kernel::kAvx512Vnni) shift_to_u8(data.data() + r * lda, lda);
    if (plan.kernel == Int8Kernel::kAvx2) widen(data.data() + r * lda, lda, wide.data() + r * lda);
  }
  run_units(plan, data.data(), wide.data(), w, nullptr, 0, plan.blocks * plan.tiles,
            [&](int r0, int n, int col, int cols, const int32_t* tile, size_t stride) {
              for (int r = 0; r < n; ++r)
                std::copy(tile + r * stride, tile + r * stride + cols,
                          acc + static_cast<size_t>(r0 + r) * out + col);
            });
}

}  // namespace core
