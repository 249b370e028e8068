#include "core/weight_packer.h"

#include <algorithm>

namespace core {

WeightPacker::WeightPacker(PackedArena& arena, std::vector<std::unique_ptr<PackedMatrix>>& owner)
    : arena_(arena), owner_(owner), packs_(packed_isa() != PackedIsa::kNone) {}

F32Weights WeightPacker::prepare(const StoredWeights& w, int in) {
  if (!packs_) return F32Weights{w.f32_rows(), nullptr};
  return F32Weights{nullptr, pack({&w}, in)};
}

F32Weights WeightPacker::prepare_stacked(const std::vector<StoredWeights>& blocks, int in,
                                         std::vector<F32Weights>& each) {
  each.clear();
  const bool whole_panels = std::all_of(blocks.begin(), blocks.end(), [](const StoredWeights& b) {
    return b.rows % PackedMatrix::kPanel == 0;
  });
  if (!packs_ || !whole_panels) {
    for (const StoredWeights& b : blocks) each.push_back(prepare(b, in));
    return {};
  }
  std::vector<const StoredWeights*> all;
  for (const StoredWeights& b : blocks) all.push_back(&b);
  const PackedMatrix* stacked = pack(all, in);
  int first = 0;
  for (const StoredWeights& b : blocks) {
    owner_.push_back(std::make_unique<PackedMatrix>(stacked->columns(first, b.rows)));
    each.push_back(F32Weights{nullptr, owner_.back().get()});
    first += b.rows;
  }
  return F32Weights{nullptr, stacked};
}

// Read a buffer at a time, so the weights are never held unpacked whole (f16 stays f16 in the panels
// when every block is f16).
const PackedMatrix* WeightPacker::pack(const std::vector<const StoredWeights*>& blocks, int in) {
  int out = 0;
  bool f16 = true;
  for (const StoredWeights* b : blocks) {
    out += b->rows;
    f16 = f16 && b->f16;
  }
  using Panels = PackedMatrix::Panels;
  auto m = std::make_unique<PackedMatrix>(out, in, f16 ? Panels::kF16 : Panels::kF32, &arena_);
  // 128 KB at a time (or a row, if wider): stays in L2 between the read and the packing.
  constexpr size_t kBufferBytes = size_t{128} << 10;
  int first = 0;
  for (const StoredWeights* b : blocks) {
    const size_t row_bytes = static_cast<size_t>(in) * (b->f16 ? 2 : 4);
    const int step = std::max(1, static_cast<int>(kBufferBytes / row_bytes));
    if (buffer_.size() < step * row_bytes) buffer_.resize(step * row_bytes);
    for (int r = 0; r < b->rows; r += step) {
      const int n = std::min(step, b->rows - r);
      b->read_rows(r, n, buffer_.data());
      m->pack_rows(first + r, n, buffer_.data(), b->f16);
    }
    first += b->rows;
  }
  owner_.push_back(std::move(m));
  return owner_.back().get();
}

}  // namespace core
