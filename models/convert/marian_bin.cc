#include "models/convert/marian_bin.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "core/regular_file.h"
#include "models/blob_io.h"
#include "models/convert/little_endian.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kMarianBinVersion = 1;
constexpr uint64_t kMaxMarianItems = 1 << 16;  // a Transformer-big has a few hundred
constexpr uint64_t kMaxMarianRank = 8;
constexpr uint64_t kMarianHeaderWords = 4;  // name length, type, shape length, data length

// Marian's Type values (marian-dev src/common/types.h): a class bit plus the item size in the low byte.
constexpr uint64_t kMarianIntgemm8 = 0x4000 + 0x0100 + 1;
constexpr uint64_t kMarianIntgemm16 = 0x4000 + 0x0100 + 2;
constexpr uint64_t kMarianPackedClass = 0x0800;

// The types nmt reads, as the .npy dtypes the Marian converter takes.
struct MarianReadableType {
  uint64_t type;
  NpyDType dtype;
};
constexpr MarianReadableType kMarianReadableTypes[] = {
    {0x0400 + 4, NpyDType::kF32},  // float32
    {0x0400 + 2, NpyDType::kF16},  // float16
    {0x0100 + 1, NpyDType::kI8},   // int8 (special:model.yml)
    {0x0200 + 1, NpyDType::kU8},   // uint8
};

std::string marian_type_text(uint64_t type) {
  if (type == kMarianIntgemm8) return "intgemm8";
  if (type == kMarianIntgemm16) return "intgemm16";
  if (type & kMarianPackedClass) return "packed (FBGEMM)";
  char hex[32];
  std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(type));
  return hex;
}

// Reads the file's parts in order, refusing to run past its end.
class MarianBinCursor {
 public:
  MarianBinCursor(int fd, uint64_t size, const std::string& path) : fd_(fd), size_(size), path_(path) {}
  uint64_t position() const { return pos_; }
  std::string bytes(uint64_t n, const std::string& what) {
    if (n > size_ - pos_) throw ModelError(path_ + ": truncated: " + what + " runs past the end of the file");
    std::string out(static_cast<size_t>(n), '\0');
    read_exactly(fd_, path_, pos_, n, out.data());
    pos_ += n;
    return out;
  }
  uint64_t word(const std::string& what) { return little_endian(bytes(8, what), 0, 8); }

 private:
  int fd_;
  uint64_t size_;
  const std::string& path_;
  uint64_t pos_ = 0;
};

}  // namespace

bool looks_like_marian_bin(const std::string& path) {
  const std::string head = core::regular_file_head(path, 16);
  if (head.size() < 16) return false;
  const uint64_t items = little_endian(head, 8, 8);
  return little_endian(head, 0, 8) == kMarianBinVersion && items >= 1 && items <= kMaxMarianItems;
}

MarianBinFile::MarianBinFile(const std::string& path) : path_(path) {
  struct stat st;
  try {
    fd_ = core::open_regular_file(path, "Marian model (.bin)", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  MarianBinCursor c(fd_.get(), size, path);
  const uint64_t version = c.word("the version");
  if (version != kMarianBinVersion) {
    throw ModelError(path + ": not a Marian binary model of version 1 (its first word is " +
                     std::to_string(version) + ")");
  }
  const uint64_t count = c.word("the item count");
  if (count == 0 || count > kMaxMarianItems) {
    throw ModelError(path + ": " + std::to_string(count) + " items (at most " +
                     std::to_string(kMaxMarianItems) + ")");
  }
  const std::string table = c.bytes(count * kMarianHeaderWords * 8, "the item headers");
  auto header = [&](uint64_t i, uint64_t field) {
    return little_endian(table, static_cast<size_t>((i * kMarianHeaderWords + field) * 8), 8);
  };
  std::vector<std::string> names(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t length = header(i, 0);
    std::string name = c.bytes(length, "item " + std::to_string(i) + "'s name");
    if (length == 0 || name.back() != '\0' || name.find('\0') != name.size() - 1)
      throw ModelError(path + ": item " + std::to_string(i) + "'s name is not one NUL-terminated string");
    name.pop_back();
    if (items_.count(name) != 0) throw ModelError(path + ": item '" + name + "' appears twice");
    items_[name];
    names[i] = std::move(name);
  }
  for (uint64_t i = 0; i < count; ++i) {
    const std::string& name = names[i];
    Item& item = items_[name];
    const uint64_t rank = header(i, 2);
    if (rank > kMaxMarianRank)
      throw ModelError(path + ": item '" + name + "': shape of " + std::to_string(rank) + " dimensions");
    const std::string dims = c.bytes(rank * 4, "item '" + name + "''s shape");
    uint64_t elements = 1;
    for (uint64_t d = 0; d < rank; ++d) {
      const int64_t value = static_cast<int32_t>(little_endian(dims, static_cast<size_t>(d * 4), 4));
      if (value <= 0 || elements > size / static_cast<uint64_t>(value))
        throw ModelError(path + ": item '" + name + "': shape dimension " + std::to_string(value) +
                         " does not fit the file");
      elements *= static_cast<uint64_t>(value);
      item.shape.push_back(value);
    }
    const uint64_t type = header(i, 1);
    const MarianReadableType* readable = nullptr;
    for (const MarianReadableType& row : kMarianReadableTypes) {
      if (row.type == type) readable = &row;
    }
    if (type == kMarianIntgemm8) {
      item.dtype = NpyDType::kI8;
      item.intgemm8 = true;
      item.bytes = elements;
      continue;
    }
    if (readable == nullptr) {
      throw ModelError(path + ": item '" + name + "' is of Marian type " + marian_type_text(type) +
                       ", which nmt does not read: write the model as float32 or intgemm8 (marian-conv "
                       "--gemm-type) or as .npz");
    }
    item.dtype = readable->dtype;
    item.bytes = elements * (type & 0xff);  // Marian's low byte is the item size
  }
  const uint64_t padding = c.word("the padding length");
  c.bytes(padding, "the padding");
  uint64_t offset = c.position();
  for (uint64_t i = 0; i < count; ++i) {
    Item& item = items_[names[i]];
    const uint64_t stored = header(i, 3);
    const uint64_t needed = item.bytes + (item.intgemm8 ? sizeof(float) : 0);  // intgemm8: its multiplier
    if (stored < needed) {
      throw ModelError(path + ": item '" + names[i] + "': " + std::to_string(stored) + " data bytes for " +
                       std::to_string(needed) + " bytes of values");
    }
    if (stored > size - offset) {
      throw ModelError(path + ": truncated: item '" + names[i] + "''s data runs past the end of the file");
    }
    item.offset = offset;
    offset += stored;
  }
}

std::vector<std::string> MarianBinFile::names() const {
  std::vector<std::string> out;
  for (const auto& entry : items_) out.push_back(entry.first);
  return out;
}

const MarianBinFile::Item& MarianBinFile::item(const std::string& name) const {
  const auto found = items_.find(name);
  if (found == items_.end()) throw ModelError(path_ + ": no item '" + name + "'");
  return found->second;
}

bool MarianBinFile::intgemm8(const std::string& name) const { return has(name) && item(name).intgemm8; }

float MarianBinFile::intgemm8_multiplier(const std::string& name) const {
  const Item& found = item(name);
  if (!found.intgemm8) throw ModelError(path_ + ": item '" + name + "' is not an intgemm8 matrix");
  std::string bytes(sizeof(float), '\0');
  read_exactly(fd_.get(), path_, found.offset + found.bytes, sizeof(float), bytes.data());
  const uint32_t bits = static_cast<uint32_t>(little_endian(bytes, 0, 4));
  float multiplier;
  std::memcpy(&multiplier, &bits, sizeof multiplier);
  if (!(multiplier > 0.0f) || !std::isfinite(multiplier)) {
    throw ModelError(path_ + ": item '" + name + "': quantization multiplier " + std::to_string(multiplier) +
                     " (expected finite and positive)");
  }
  return multiplier;
}

NpyArray MarianBinFile::read(const std::string& name) const {
  const Item& item = this->item(name);
  NpyArray array;
  array.dtype = item.dtype;
  array.shape = item.shape;
  array.data.resize(static_cast<size_t>(item.bytes));
  read_exactly(fd_.get(), path_, item.offset, item.bytes, array.data.data());
  return array;
}

}  // namespace models
