// y = x W^T + b with W in int8, one f32 scale per output row (symmetric), packed once at load.
//
// x is quantized per row on the fly: scale = max|x| / 127, q = round-to-nearest-even(x * 127 / max|x|),
// so |x - q * scale| <= scale / 2. The products accumulate exactly in int32, then
//   y[r][j] = float(acc[r][j]) * (x_scale[r] * w_scale[j]) + bias[j]
// (a multiply, then an add: no fused multiply-add), the same arithmetic on every kernel: a row's result
// is bit-identical whatever the kernel, the other rows or the threads.
//
// Kernels (core/cpu.h chooses): AVX-512 VNNI (vpdpbusd: x + 128 as u8 times the s8 weights, minus 128 x
// the column sums computed at packing), AVX2 (vpmaddwd on x and the weights widened to int16: no int16
// sum to saturate, unlike vpmaddubsw's), and a portable scalar loop. Weights are limited to [-127, 127],
// the quantizer's symmetric range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/packed_gemm.h"

namespace core {

enum class Int8Kernel { kPortable, kAvx2, kAvx512Vnni };
// The kernel in use: the best the CPU has within NMT_CPU's level, unless a test forced a lower one.
Int8Kernel int8_kernel();
// The best the CPU has within NMT_CPU's level.
Int8Kernel cpu_int8_kernel();
// For tests: run a lower kernel than the CPU's (never a higher one). Returns the previous choice.
Int8Kernel force_int8_kernel(Int8Kernel kernel);
const char* int8_kernel_name(Int8Kernel kernel);

// Quantizes x[n] into q[n] with the rule above; returns the scale (1 for an all-zero row). NaN and
// infinities are the caller's to exclude.
float quantize_row(const float* x, int n, int8_t* q);
// q[i] = round-to-nearest-even(x[i] * multiplier) clamped to [-127, 127]: quantize_row's arithmetic with
// the multiplier given (127 / max|x| there).
void quantize_row_by(const float* x, int n, float multiplier, int8_t* q);

// How a product quantizes its input rows. Per row is nmt's rule (the header's): a row's result never depends
// on the other rows. The other two are intgemm's, as Marian runs its int8 models: per matrix, every row of
// one product by the multiplier mA = 127 / max|x| over all of them; fixed, by a multiplier the model
// prescribes (Marian's precomputed "alphas"), values past its range clamped to +-127. Their results are
// then intgemm's, float for float: y = fma(float(acc), u, bias) (float(acc) * u without a bias) with
// u = 1 / (mA * mB) (mB = 1 / the weight's scale); shifted (intgemm's Int8Shift, which adds 127 to the input
// and takes it back through the bias), y = fma(float(acc + 127 * colsum), u, fma(float(colsum), u', bias)),
// u' = -(127 / mA) * (127 / mB) / 127.
struct Int8InputScaling {
  enum class Kind { kPerRow, kPerMatrix, kFixed };
  Kind kind = Kind::kPerRow;
  float multiplier = 0.0f;  // kFixed only: finite and positive
  bool shifted = false;     // kPerMatrix and kFixed: Int8Shift's float arithmetic
};

class Int8Matrix {
 public:
  static constexpr int kPanel = 16;  // output columns per panel
  static constexpr int kGroup = 4;   // consecutive k values per column in a panel (one 32-bit lane)

  // An unfilled matrix of `out` rows of `in`; fill every row with pack_rows (weights in the arena when
  // given, which must outlive the matrix).
  Int8Matrix(int out, int in, PackedArena* arena = nullptr);
  // Rows [first, first + n) of W: int8 [n, in] row-major with their scales [n].
  void pack_rows(int first, int n, const int8_t* rows, const float* scales);
  // The same from f32 rows, quantized here.
  void quantize_rows(int first, int n, const float* rows);
  // Columns [first, first + n) as a matrix of their own reading these panels (first a multiple of
  // kPanel), as PackedMatrix::columns: a stacked q/k/v serves each block's product too. Valid while
  // this one lives.
  Int8Matrix columns(int first, int n) const;

  int out() const { return out_; }
  int in() const { return in_; }
  int groups() const { return (in_ + kGroup - 1) / kGroup; }  // k groups, the last zero-padded
  int panels() const { return (out_ + kPanel - 1) / kPanel; }
  // Panel p: [groups][kPanel][kGroup] int8; columns past `out` and k past `in` are zero.
  const int8_t* panel(int p) const { return data_ + static_cast<size_t>(p) * panel_bytes(); }
  size_t panel_bytes() const { return static_cast<size_t>(groups()) * kPanel * kGroup; }
  const float* scales() const { return scales_; }       // [panels * kPanel], 0 past `out`
  const int32_t* column_sums() const { return sums_; }  // [panels * kPanel]: sum over k of W[j][k]
  size_t bytes() const { return static_cast<size_t>(panels()) * panel_bytes(); }
  int8_t weight(int j, int k) const;
  // How int8_linear quantizes this product's input (per row unless set); column views keep it.
  const Int8InputScaling& input_scaling() const { return input_scaling_; }
  void set_input_scaling(const Int8InputScaling& scaling) { input_scaling_ = scaling; }
  // Row j of W dequantized (q * scale) into row[in]: embeddings are looked up here.
  void copy_row(int j, float* row) const;
  // intgemm's weight multiplier mB of rows [first, first + n), where the model gives it: int8_linear's
  // intgemm arithmetic then uses it instead of 1 / scale, which is not always bit-equal to it (the shifted
  // form's cancellation shows the difference). Column views keep them.
  void set_multipliers(int first, int n, float multiplier);
  const float* multipliers() const { return multipliers_; }  // [panels * kPanel], or null when none

 private:
  struct PerColumn {  // shared with the column views
    std::vector<float> scales;
    std::vector<int32_t> sums;
    std::vector<float> multipliers;  // empty unless set_multipliers was called
  };
  int out_, in_;
  int8_t* data_ = nullptr;
  std::shared_ptr<int8_t> owned_;  // data_ when there is no arena
  std::shared_ptr<PerColumn> columns_;
  float* scales_ = nullptr;
  int32_t* sums_ = nullptr;
  float* multipliers_ = nullptr;
  Int8InputScaling input_scaling_;
};

// y[rows, out] = x[rows, in] * W^T + bias (bias [out] or null), as the header says, x quantized as
// w.input_scaling() says.
void int8_linear(const float* x, int rows, const Int8Matrix& w, const float* bias, float* y);

// Rows quantized once for several products over the same inputs (the output layer read a column block
// at a time): what int8_linear does to x before its products, kept in the current kernel's layout.
class QuantizedRows {
 public:
  QuantizedRows() = default;
  QuantizedRows(int max_rows, int in) { reserve(max_rows, in); }
  // Sizes the buffers for up to max_rows rows of `in`: quantize() then allocates nothing up to that.
  void reserve(int max_rows, int in);
  // Quantizes x[rows, in] as `scaling` says, the rows split over the current team.
  void quantize(const float* x, int rows, int in, const Int8InputScaling& scaling = {});
  int rows() const { return rows_; }

 private:
  friend void int8_linear(const QuantizedRows& x, int first_row, int rows, const Int8Matrix& w,
                          const float* bias, float* y);
  Int8Kernel kernel_ = Int8Kernel::kPortable;
  int rows_ = 0, in_ = 0;
  size_t lda_ = 0;             // bytes per row: whole groups, zero-padded
  std::vector<int8_t> data_;   // int8 q (VNNI: q + 128 as u8)
  std::vector<int16_t> wide_;  // data widened, for AVX2
  std::vector<float> scales_;
  float multiplier_ = 0.0f;  // shared by every row (intgemm's scalings), else 0
  bool shifted_ = false;
};

// y[rows, out] for rows [first_row, first_row + rows) of x: bit for bit int8_linear's y from the floats x
// was quantized from. x must be quantized for the kernel in use and for w's `in`.
void int8_linear(const QuantizedRows& x, int first_row, int rows, const Int8Matrix& w, const float* bias,
                 float* y);

// The raw products, for tests: acc[rows, out] = q[rows, in] * W^T in int32 on the current kernel, q int8
// rows of `in` (k past `in` is read as zero).
void int8_products(const int8_t* q, int rows, const Int8Matrix& w, int32_t* acc);

}  // namespace core
