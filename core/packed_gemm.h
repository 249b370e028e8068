// y = x W^T + b with W repacked once, at load, into 16-column panels.
//
// Why: the decoder multiplies few rows (batch x beam) by every weight matrix at every step. OpenBLAS
// repacks the whole weight matrix on each such call, a large share of decoding time. A panel layout
// made once lets a small register-tiled kernel stream the weights straight from cache.
//
// Every output element is computed as one fused multiply-add chain over k in order, then + bias, by
// both the AVX-512 and the AVX2 kernel: a row's result is bit-identical whatever the other rows of the
// call, the number of rows, or which of the two kernels ran.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace core {

// Storage for a model's packed matrices, handed out from large blocks backed by 2 MB pages where the
// kernel allows: loading faults in a few huge pages instead of thousands of small ones, and decoding
// streams the weights with few TLB misses.
class PackedArena {
 public:
  void* allocate(size_t bytes);  // 64-byte aligned; lives as long as the arena

 private:
  struct Block {
    struct Free {
      void operator()(char* p) const;
    };
    std::unique_ptr<char[], Free> data;
    size_t used = 0, size = 0;
  };
  std::vector<Block> blocks_;
};

// Which packed kernel this CPU runs: none (use plain BLAS), AVX2+FMA, or AVX-512F.
enum class PackedIsa { kNone, kAvx2, kAvx512 };
PackedIsa packed_isa();
// For tests: run a lower ISA than the CPU has (never a higher one). Returns the previous choice.
PackedIsa force_packed_isa(PackedIsa isa);

class PackedMatrix {
 public:
  static constexpr int kPanel = 16;  // output columns per panel

  // weight is [out, in] row-major (PyTorch Linear layout), f32 or IEEE f16. f16 weights stay f16 in the
  // panels, widened by the kernels as they load them (exactly: the same results as f32 panels of the same
  // values): half the memory to fault in at load (page faults dominate loading) and to stream per step.
  // The panels live in `arena` when given (which must outlive the matrix), else in the matrix itself.
  PackedMatrix(const float* weight, int out, int in, PackedArena* arena = nullptr);
  PackedMatrix(const uint16_t* f16_weight, int out, int in, PackedArena* arena = nullptr);

  // W as blocks of rows stacked on each other, e.g. the query, key and value projections as one
  // [3d, d] product: one call over 3d columns instead of three over d. f16 panels if every block is f16.
  struct Rows {
    const void* data;  // [rows, in] row-major
    bool f16;          // IEEE f16, else f32
    int rows;
  };
  PackedMatrix(const std::vector<Rows>& blocks, int in, PackedArena* arena = nullptr);
  // Packing in pieces (e.g. from a file read a chunk at a time): an unfilled matrix of `out` rows of
  // `in`, then pack_rows for every row.
  enum class Panels { kF32, kF16 };
  PackedMatrix(int out, int in, Panels panels, PackedArena* arena = nullptr);
  // Rows [first, first + n) of W from `data`, [n, in] row-major, IEEE f16 or f32 (f32 needs f32 panels).
  void pack_rows(int first, int n, const void* data, bool data_f16);
  // Columns [first, first + n) of this matrix as one of its own, reading these panels (first a multiple
  // of kPanel): a stacked matrix serves each block's product on its own too. Valid while this one lives.
  PackedMatrix columns(int first, int n) const;

  int out() const { return out_; }
  int in() const { return in_; }
  int panels() const { return (out_ + kPanel - 1) / kPanel; }
  bool f16() const { return f16_; }  // panels of IEEE f16, else of f32
  size_t element_bytes() const { return f16_ ? sizeof(uint16_t) : sizeof(float); }
  // Panel p: [in][kPanel], columns p*16 .. p*16+15 of W^T; columns past `out` are zero.
  const void* panel(int p) const { return data_ + static_cast<size_t>(p) * in_ * kPanel * element_bytes(); }
  size_t bytes() const { return static_cast<size_t>(panels()) * in_ * kPanel * element_bytes(); }
  // Row j of W (column j of the panels) into row[in]: lets a tied embedding be looked up here, so the
  // unpacked table is never read again after packing.
  void copy_row(int j, float* row) const;

 private:
  struct FreeAligned {
    void operator()(char* p) const;
  };
  PackedMatrix(int out, int in, bool f16) : out_(out), in_(in), f16_(f16) {}
  void allocate(PackedArena* arena);
  int out_, in_;
  bool f16_ = false;
  char* data_ = nullptr;
  std::unique_ptr<char[], FreeAligned> owned_;  // data_ when there is no arena
};

// y[rows, out] = x[rows, in] * W^T + bias (bias [out] or null). Needs packed_isa() != kNone.
void packed_linear(const float* x, int rows, const PackedMatrix& w, const float* bias, float* y);

}  // namespace core
