// Int8Matrix's packing, the row quantizer and the int8 kernel choice (core/int8_gemm.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cpu.h"
#include "core/int8_gemm.h"

namespace core {

namespace {

Int8Kernel best_int8_kernel() {
  const CpuIsa isa = cpu_isa();
  if (isa == CpuIsa::kAvx512 && cpu_features().avx512_vnni) return Int8Kernel::kAvx512Vnni;
  if (isa >= CpuIsa::kAvx2) return Int8Kernel::kAvx2;
  return Int8Kernel::kPortable;
}

constexpr int kUnset = -1;
std::atomic<int> g_kernel{kUnset};  // the CPU's until a test forces a lower one

}  // namespace

Int8Kernel cpu_int8_kernel() {
  static const Int8Kernel kernel = best_int8_kernel();
  return kernel;
}

Int8Kernel int8_kernel() {
  const int kernel = g_kernel.load(std::memory_order_relaxed);
  if (kernel != kUnset) return static_cast<Int8Kernel>(kernel);
  const Int8Kernel cpu = cpu_int8_kernel();
  g_kernel.store(static_cast<int>(cpu), std::memory_order_relaxed);
  return cpu;
}

Int8Kernel force_int8_kernel(Int8Kernel kernel) {
  const Int8Kernel previous = int8_kernel();
  if (static_cast<int>(kernel) > static_cast<int>(cpu_int8_kernel())) kernel = cpu_int8_kernel();
  g_kernel.store(static_cast<int>(kernel), std::memory_order_relaxed);
  return previous;
}

const char* int8_kernel_name(Int8Kernel kernel) {
  switch (kernel) {
    case Int8Kernel::kAvx512Vnni:
      return "avx512-vnni";
    case Int8Kernel::kAvx2:
      return "avx2";
    default:
      return "portable";
  }
}

float quantize_row(const float* x, int n, int8_t* q) {
  float amax = 0.0f;
#pragma omp simd reduction(max : amax)
  for (int i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  if (amax == 0.0f) {
    std::memset(q, 0, static_cast<size_t>(n));
    return 1.0f;
  }
  quantize_row_by(x, n, 127.0f / amax, q);
  return amax / 127.0f;
}

void quantize_row_by(const float* x, int n, float multiplier, int8_t* q) {
  // Round to nearest even by adding and subtracting 1.5 x 2^23 (exact for |v| < 2^22): what nearbyint
  // gives, without a libm call per value, so the loop vectorizes. Larger values are clamped first.
  constexpr float kRound = 12582912.0f;
#pragma omp simd
  for (int i = 0; i < n; ++i) {
    const float scaled = std::min(1024.0f, std::max(-1024.0f, x[i] * multiplier));
    const float v = (scaled + kRound) - kRound;
    // The clamp keeps -128 out, so the range stays symmetric.
    q[i] = static_cast<int8_t>(static_cast<int>(std::min(127.0f, std::max(-127.0f, v))));
  }
}

Int8Matrix::Int8Matrix(int out, int in, PackedArena* arena) : out_(out), in_(in) {
  if (out < 1 || in < 1)
    throw std::invalid_argument("Int8Matrix: " + std::to_string(out) + " x " + std::to_string(in));
  columns_ = std::make_shared<PerColumn>();
  columns_->scales.assign(static_cast<size_t>(panels()) * kPanel, 0.0f);
  columns_->sums.assign(static_cast<size_t>(panels()) * kPanel, 0);
  scales_ = columns_->scales.data();
  sums_ = columns_->sums.data();
  const size_t n = bytes();
  if (arena) {
    data_ = static_cast<int8_t*>(arena->allocate(n));
  } else {
    void* raw = std::aligned_alloc(64, (n + 63) / 64 * 64);
    if (!raw) throw std::bad_alloc();
    owned_.reset(static_cast<int8_t*>(raw), [](int8_t* p) { std::free(p); });
    data_ = owned_.get();
  }
  std::memset(data_, 0, n);  // the padding (columns past out, k past in) must be zero
}

void Int8Matrix::pack_rows(int first, int n, const int8_t* rows, const float* scales) {
  if (first < 0 || n < 0 || first + n > out_)
    throw std::invalid_argument("Int8Matrix::pack_rows: rows [" + std::to_string(first) + ", +" +
                                std::to_string(n) + ") of " + std::to_string(out_));
  for (int r = 0; r < n; ++r) {
    const int j = first + r;
    int8_t* column = data_ + static_cast<size_t>(j / kPanel) * panel_bytes() + (j % kPanel) * kGroup;
    const int8_t* row = rows + static_cast<size_t>(r) * in_;
    int32_t sum = 0;
    for (int k = 0; k < in_; ++k) {
      if (row[k] == -128)
        throw std::invalid_argument("Int8Matrix::pack_rows: row " + std::to_string(j) + " holds -128");
      column[static_cast<size_t>(k / kGroup) * kPanel * kGroup + k % kGroup] = row[k];
      sum += row[k];
    }
    sums_[j] = sum;
    scales_[j] = scales[r];
  }
}

void Int8Matrix::quantize_rows(int first, int n, const float* rows) {
  std::vector<int8_t> q(static_cast<size_t>(in_));
  for (int r = 0; r < n; ++r) {
    const float scale = quantize_row(rows + static_cast<size_t>(r) * in_, in_, q.data());
    pack_rows(first + r, 1, q.data(), &scale);
  }
}

Int8Matrix Int8Matrix::columns(int first, int n) const {
  if (first % kPanel != 0 || first < 0 || n < 1 || first + n > out_)
    throw std::invalid_argument("Int8Matrix::columns: [" + std::to_string(first) + ", +" + std::to_string(n) +
                                ") of " + std::to_string(out_));
  Int8Matrix view(*this);
  view.out_ = n;
  view.data_ = data_ + static_cast<size_t>(first / kPanel) * panel_bytes();
  view.scales_ = scales_ + first;
  view.sums_ = sums_ + first;
  if (multipliers_) view.multipliers_ = multipliers_ + first;
  return view;
}

void Int8Matrix::set_multipliers(int first, int n, float multiplier) {
  if (first < 0 || n < 0 || first + n > out_ || !(multiplier > 0.0f) || !std::isfinite(multiplier))
    throw std::invalid_argument("Int8Matrix::set_multipliers: rows [" + std::to_string(first) + ", +" +
                                std::to_string(n) + ") of " + std::to_string(out_) + ", multiplier " +
                                std::to_string(multiplier));
  if (!multipliers_) {
    columns_->multipliers.assign(static_cast<size_t>(panels()) * kPanel, 0.0f);
    multipliers_ = columns_->multipliers.data();
  }
  std::fill(multipliers_ + first, multipliers_ + first + n, multiplier);
}

int8_t Int8Matrix::weight(int j, int k) const {
  return panel(
      j / kPanel)[static_cast<size_t>(k / kGroup) * kPanel * kGroup + (j % kPanel) * kGroup + k % kGroup];
}

void Int8Matrix::copy_row(int j, float* row) const {
  const float scale = scales_[j];
  for (int k = 0; k < in_; ++k) row[k] = static_cast<float>(weight(j, k)) * scale;
}

}  // namespace core
