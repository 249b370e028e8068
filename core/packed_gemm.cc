#include "core/packed_gemm.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cpu.h"
#include "core/gemm.h"
#include "core/half.h"
#include "core/packed_kernels.h"
#include "core/thread_team.h"

namespace core {

namespace {

// The CPU's packed kernel, as core/cpu.h chooses it (NMT_CPU=blas or portable: none, =avx2: AVX2).
PackedIsa cpu_packed_isa() {
  static const PackedIsa isa = [] {
    const CpuChoice& choice = cpu_choice();
    if (choice.f32_on_blas) return PackedIsa::kNone;
    return choice.isa == CpuIsa::kAvx512 ? PackedIsa::kAvx512 : PackedIsa::kAvx2;
  }();
  return isa;
}

constexpr int kUnset = -1;
std::atomic<int> g_isa{kUnset};  // the kernel in use: the CPU's until a test forces a lower one

// Rows per pass over the weights: enough rows to reuse each panel many times, few enough that the
// rows (in x k floats, ~512 KB) stay in the L2 cache while every panel streams past them. The passes
// are made even: 128 rows of 1024 floats as 120 + 8 would stream all the weights again for 8 rows.
int rows_per_pass(int rows, int in, int tile_rows) {
  const int fit = std::max(1, static_cast<int>((512 * 1024) / (sizeof(float) * static_cast<size_t>(in))));
  const int passes = (rows + fit - 1) / fit;
  const int even = (rows + passes - 1) / passes;
  return (even + tile_rows - 1) / tile_rows * tile_rows;
}

// Panels per column block: a block of weights (~256 KB) stays in the L2 cache while every row tile of
// the pass runs over it, so a tile writes its outputs as runs of ~1 KB per row instead of 128-byte
// pieces scattered over the whole output. That matters when the output is megabytes (the logits); narrow
// layers fit either way.
int panels_per_block(int in, int panel_step) {
  const int fit =
      static_cast<int>((256 * 1024) / (sizeof(float) * PackedMatrix::kPanel * static_cast<size_t>(in)));
  return std::max(panel_step, fit / panel_step * panel_step);
}

}  // namespace

PackedIsa packed_isa() {
  const int isa = g_isa.load(std::memory_order_relaxed);
  if (isa != kUnset) return static_cast<PackedIsa>(isa);
  const PackedIsa cpu = cpu_packed_isa();
  g_isa.store(static_cast<int>(cpu), std::memory_order_relaxed);
  return cpu;
}

PackedIsa force_packed_isa(PackedIsa isa) {
  const PackedIsa previous = packed_isa();
  if (static_cast<int>(isa) > static_cast<int>(cpu_packed_isa())) isa = cpu_packed_isa();
  g_isa.store(static_cast<int>(isa), std::memory_order_relaxed);
  return previous;
}

void PackedMatrix::FreeAligned::operator()(char* p) const { std::free(p); }

void PackedArena::Block::Free::operator()(char* p) const { std::free(p); }

void* PackedArena::allocate(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20, kBlock = size_t{32} << 20;
  bytes = (bytes + 63) / 64 * 64;
  if (blocks_.empty() || blocks_.back().size - blocks_.back().used < bytes) {
    Block b;
    b.size = std::max(kBlock, (bytes + kHugePage - 1) / kHugePage * kHugePage);
    void* raw = std::aligned_alloc(kHugePage, b.size);
    if (!raw) throw std::bad_alloc();
    // A hint: without transparent huge pages this is a no-op and 4 KB pages serve as before.
    ::madvise(raw, b.size, MADV_HUGEPAGE);
    b.data.reset(static_cast<char*>(raw));
    blocks_.push_back(std::move(b));
  }
  Block& b = blocks_.back();
  void* p = b.data.get() + b.used;
  b.used += bytes;
  return p;
}

void PackedMatrix::copy_row(int j, float* row) const {
  const size_t at = static_cast<size_t>(j / kPanel) * in_ * kPanel + j % kPanel;
  if (f16_) {
    const uint16_t* column = reinterpret_cast<const uint16_t*>(data_) + at;
    for (int i = 0; i < in_; ++i) row[i] = half_to_float(column[static_cast<size_t>(i) * kPanel]);
  } else {
    const float* column = reinterpret_cast<const float*>(data_) + at;
    for (int i = 0; i < in_; ++i) row[i] = column[static_cast<size_t>(i) * kPanel];
  }
}

void PackedMatrix::allocate(PackedArena* arena) {
  const size_t n = bytes();
  if (arena) {
    data_ = static_cast<char*>(arena->allocate(n));
  } else {
    void* raw = std::aligned_alloc(64, (n + 63) / 64 * 64);
    if (!raw) throw std::bad_alloc();
    owned_.reset(static_cast<char*>(raw));
    data_ = owned_.get();
  }
  const int padded = panels() * kPanel - out_;  // columns past `out` in the last panel must be zero
  if (padded > 0) {
    const size_t e = element_bytes();
    char* last = data_ + static_cast<size_t>(panels() - 1) * in_ * kPanel * e;
    for (int i = 0; i < in_; ++i)
      std::memset(last + (static_cast<size_t>(i) * kPanel + (kPanel - padded)) * e, 0, padded * e);
  }
}

namespace {

// Row j of W -> column j of the panels.
template <typename T>
void scatter_row(T* panels, int in, int j, const T* row) {
  T* dst = panels + static_cast<size_t>(j / PackedMatrix::kPanel) * in * PackedMatrix::kPanel +
           j % PackedMatrix::kPanel;
  for (int i = 0; i < in; ++i) dst[static_cast<size_t>(i) * PackedMatrix::kPanel] = row[i];
}

PackedMatrix::Panels panels_for(const std::vector<PackedMatrix::Rows>& blocks) {
  const bool f16 =
      std::all_of(blocks.begin(), blocks.end(), [](const PackedMatrix::Rows& b) { return b.f16; });
  return f16 ? PackedMatrix::Panels::kF16 : PackedMatrix::Panels::kF32;
}

int total_rows(const std::vector<PackedMatrix::Rows>& blocks) {
  int n = 0;
  for (const PackedMatrix::Rows& b : blocks) n += b.rows;
  return n;
}

}  // namespace

PackedMatrix::PackedMatrix(int out, int in, Panels panels, PackedArena* arena)
    : out_(out), in_(in), f16_(panels == Panels::kF16) {
  allocate(arena);
}

void PackedMatrix::pack_rows(int first, int n, const void* data, bool data_f16) {
  if (first < 0 || n < 0 || first + n > out_ || (f16_ && !data_f16))
    throw std::invalid_argument("PackedMatrix::pack_rows: rows [" + std::to_string(first) + ", +" +
                                std::to_string(n) + ") of " + std::to_string(out_) +
                                (f16_ && !data_f16 ? ", f32 rows into f16 panels" : ""));
  std::vector<float> widened(f16_ || !data_f16 ? 0 : in_);  // f16 rows into f32 panels
  for (int r = 0; r < n; ++r) {
    const size_t at = static_cast<size_t>(r) * in_;
    if (f16_) {
      scatter_row(reinterpret_cast<uint16_t*>(data_), in_, first + r,
                  static_cast<const uint16_t*>(data) + at);
    } else if (data_f16) {
      half_to_float(static_cast<const uint16_t*>(data) + at, widened.data(), in_);
      scatter_row(reinterpret_cast<float*>(data_), in_, first + r, widened.data());
    } else {
      scatter_row(reinterpret_cast<float*>(data_), in_, first + r, static_cast<const float*>(data) + at);
    }
  }
}

PackedMatrix::PackedMatrix(const float* weight, int out, int in, PackedArena* arena)
    : PackedMatrix({{weight, false, out}}, in, arena) {}

PackedMatrix::PackedMatrix(const uint16_t* f16_weight, int out, int in, PackedArena* arena)
    : PackedMatrix({{f16_weight, true, out}}, in, arena) {}

PackedMatrix::PackedMatrix(const std::vector<Rows>& blocks, int in, PackedArena* arena)
    : PackedMatrix(total_rows(blocks), in, panels_for(blocks), arena) {
  int j = 0;
  for (const Rows& b : blocks) {
    pack_rows(j, b.rows, b.data, b.f16);
    j += b.rows;
  }
}

PackedMatrix PackedMatrix::columns(int first, int n) const {
  if (first % kPanel != 0 || first < 0 || n < 1 || first + n > out_) {
    throw std::invalid_argument("PackedMatrix::columns: [" + std::to_string(first) + ", +" +
                                std::to_string(n) + ") of " + std::to_string(out_));
  }
  PackedMatrix view(n, in_, f16_);
  view.data_ = data_ + static_cast<size_t>(first / kPanel) * in_ * kPanel * element_bytes();
  return view;
}

namespace {

// The AVX-512 kernel reads rows interleaved from outputs this wide on (see interleave_rows), and from
// inputs this deep on: a tile's 12 rows of 2048 floats (96 KB) no longer fit L1 beside the weights.
constexpr int kInterleaveMinColumns = 1024, kInterleaveMinDepth = 2048;

// Copies rows x[r0, r_end) tile by tile into `out`, each tile's rows interleaved ([in][n]):
// the kernel then broadcasts from one sequential stream instead of n rows 4*in bytes apart, which
// conflict with the weight panels in L1 when the pass runs over many columns.
void interleave_rows(const float* x, int r0, int r_end, int in, int tile_rows, float* out) {
  for (int r = r0, n; r < r_end; r += n) {
    n = std::min(tile_rows, r_end - r);
    float* tile = out + static_cast<size_t>(r - r0) * in;
    const float* rows = x + static_cast<size_t>(r) * in;
    for (int i = 0; i < in; ++i) {  // sequential writes: n read streams, one write stream
      for (int t = 0; t < n; ++t)
        tile[static_cast<size_t>(i) * n + t] = rows[static_cast<size_t>(t) * in + i];
    }
  }
}

// What row tile `tile` of `tiles` pulls into L2 while it runs over panels [p, p + panel_step) (a pair for
// the AVX-512 kernel, one panel for AVX2). The hardware prefetcher stops at every 4 KB page: left to it,
// the weights arrive while the block's first tile waits. So each tile fetches its share of the same panels in
// the next column block, spread over its k loop, and the first tile of the first block, which nothing
// fetched, fetches the next panels of its own block. Only the matrix's end stops it, not the end of a
// thread's share of the columns: in a team the block after a share may be the next this thread takes, and if
// not, its weights are on chip for the other.
packed::Prefetch prefetch_for(const PackedMatrix& w, int p, int panel_step, bool first_tile_of_first_block,
                              int block, int tile, int tiles) {
  const int last = w.panels();
  const size_t panel_row_bytes = PackedMatrix::kPanel * w.element_bytes();
  const int lines_per_panel = static_cast<int>((w.in() * panel_row_bytes + 63) / 64);
  const int target = first_tile_of_first_block ? p + panel_step : p + block;
  if (target >= last) return {};
  const int lines = std::min(panel_step, last - target) * lines_per_panel;
  if (first_tile_of_first_block) return {w.panel(target), lines};
  const int begin = static_cast<int>(static_cast<int64_t>(lines) * tile / tiles);
  const int end = static_cast<int>(static_cast<int64_t>(lines) * (tile + 1) / tiles);
  return {static_cast<const char*>(w.panel(target)) + static_cast<size_t>(begin) * 64, end - begin};
}

}  // namespace

namespace {

// How one packed_linear call runs, worked out once and shared by the threads that split its columns.
struct Plan {
  Plan(const PackedMatrix& w, int rows)
      : wide(packed_isa() == PackedIsa::kAvx512),
        tile_rows(wide ? packed::kAvx512Rows : packed::kAvx2Rows),
        panel_step(wide ? 2 : 1),
        pass(rows_per_pass(rows, w.in(), tile_rows)),
        block(panels_per_block(w.in(), panel_step)),
        // Interleaving costs a copy of the rows per call: worth it only when many columns (or a deep
        // input that would crowd the weights out of L1) reuse them.
        interleave(wide && (w.out() >= kInterleaveMinColumns || w.in() >= kInterleaveMinDepth)),
        rows(rows),
        tiles((rows + tile_rows - 1) / tile_rows),
        steps((w.panels() + panel_step - 1) / panel_step) {}
  bool wide;
  int tile_rows, panel_step, pass, block;
  bool interleave;
  int rows, tiles, steps;  // the call's rows, its row tiles and its panel steps
};

// y's rows [row_begin, row_end) (row_begin a multiple of the tile), columns of panels [first, last) (16
// columns each, up to out). a: x, or x interleaved tile by tile. Panel: float or uint16_t (f16), as w's.
template <typename Panel>
void packed_linear_panels(const Plan& plan, const float* a, int row_begin, int row_end, const PackedMatrix& w,
                          const float* bias, float* y, int first, int last) {
  const int in = w.in(), out = w.out();
  for (int r0 = row_begin; r0 < row_end; r0 += plan.pass) {
    const int r_end = std::min(row_end, r0 + plan.pass);
    const int tiles = (r_end - r0 + plan.tile_rows - 1) / plan.tile_rows;
    for (int block_begin = first; block_begin < last; block_begin += plan.block) {
      const int p_end = std::min(last, block_begin + plan.block);
      for (int r = r0, n, t = 0; r < r_end; r += n, ++t) {
        n = std::min(plan.tile_rows, r_end - r);
        const float* rows_a = a + static_cast<size_t>(r) * in;
        for (int p = block_begin; p < p_end; p += plan.panel_step) {
          const int col = p * PackedMatrix::kPanel;
          const int cols = std::min(plan.panel_step * PackedMatrix::kPanel, out - col);
          const float* b = bias ? bias + col : nullptr;
          float* c = y + static_cast<size_t>(r) * out + col;
          const Panel* panel0 = static_cast<const Panel*>(w.panel(p));
          const Panel* panel1 = p + 1 < last ? static_cast<const Panel*>(w.panel(p + 1)) : nullptr;
          const packed::Prefetch next =
              prefetch_for(w, p, plan.panel_step, block_begin == first && t == 0, plan.block, t, tiles);
          if (!plan.wide)
            packed::tile_avx2(rows_a, in, n, in, panel0, b, c, out, cols, next);
          else if (plan.interleave)
            packed::tile_avx512_interleaved(rows_a, n, in, panel0, panel1, b, c, out, cols, next);
          else
            packed::tile_avx512(rows_a, in, n, in, panel0, panel1, b, c, out, cols, next);
        }
      }
    }
  }
}

// Within a batch's team, each thread takes shares of the columns (it streams only its share of the
// weights). A unit of work is one row tile of one panel step (the AVX-512 kernel's pair), counted step by
// step: chunks are mostly runs of whole steps, but the last ones, handed out a unit at a time while the
// other threads finish, take microseconds, so the team hardly waits at the end of a product.
void packed_linear_units(const Plan& plan, const float* a, const PackedMatrix& w, const float* bias, float* y,
                         int begin, int end) {
  const int tiles = plan.tiles;
  auto row_of = [&](int tile) { return std::min(plan.rows, tile * plan.tile_rows); };
  auto panel_of = [&](int step) { return std::min(w.panels(), step * plan.panel_step); };
  auto run = [&](int step_begin, int step_end, int tile_begin, int tile_end) {
    if (w.f16())
      packed_linear_panels<uint16_t>(plan, a, row_of(tile_begin), row_of(tile_end), w, bias, y,
                                     panel_of(step_begin), panel_of(step_end));
    else
      packed_linear_panels<float>(plan, a, row_of(tile_begin), row_of(tile_end), w, bias, y,
                                  panel_of(step_begin), panel_of(step_end));
  };
  if (begin / tiles == end / tiles) {  // within one step
    run(begin / tiles, begin / tiles + 1, begin % tiles, end % tiles);
    return;
  }
  if (begin % tiles != 0) {  // the head: the last tiles of one step
    run(begin / tiles, begin / tiles + 1, begin % tiles, tiles);
    begin += tiles - begin % tiles;
  }
  if (end / tiles > begin / tiles) run(begin / tiles, end / tiles, 0, tiles);  // whole steps
  if (end % tiles != 0) run(end / tiles, end / tiles + 1, 0, end % tiles);     // the tail: the first tiles
}

}  // namespace

void packed_linear(const float* x, int rows, const PackedMatrix& w, const float* bias, float* y) {
  if (rows <= 0) return;
  const GemmTimer timer(2.0 * rows * w.out() * w.in(), team_size());
  const Plan plan(w, rows);
  const float* a = x;
  if (plan.interleave) {
    // Once per call, tiles split over the team, which then reads the copy: not once per share of columns.
    thread_local std::vector<float> interleaved;  // grows to the largest call once, then reused
    interleaved.resize(static_cast<size_t>(rows) * w.in());
    float* copy = interleaved.data();  // by pointer: in the team's other threads `interleaved` is theirs
    split_range(plan.tiles, 1, [&](int begin, int end, int) {
      const int r0 = begin * plan.tile_rows;
      interleave_rows(x, r0, std::min(rows, end * plan.tile_rows), w.in(), plan.tile_rows,
                      copy + static_cast<size_t>(r0) * w.in());
    });
    a = copy;
  }
  // Without a team the split is one call over every unit: all panels, all rows.
  split_range(plan.steps * plan.tiles, 1,
              [&](int begin, int end, int) { packed_linear_units(plan, a, w, bias, y, begin, end); });
}

}  // namespace core
