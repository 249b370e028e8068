#include "models/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/ends_with.h"
#include "core/finite_scan.h"
#include "core/half.h"
#include "core/printable.h"
#include "core/regular_file.h"
#include "models/blob_crc32.h"
#include "models/blob_io.h"
#include "models/json_fields.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kAlignment = 64;
constexpr int64_t kMaxDimension = int64_t{1} << 31;

// model.json is a description and a tensor table (tens of KB for the largest models): the cap keeps a
// crafted one from parsing into gigabytes of JSON values.
constexpr uint64_t kMaxDescriptionBytes = 16u << 20;

nlohmann::json read_json(const std::string& path) {
  std::string text;
  try {
    text = core::read_regular_file(path, "model description", kMaxDescriptionBytes);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(path + ": not valid JSON: " + e.what());
  }
}

uint64_t item_size(DType d) { return d == DType::kF32 ? 4 : d == DType::kF16 ? 2 : 1; }

}  // namespace

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return "f16";
    case DType::kI8:
      return "i8";
    default:
      return "f32";
  }
}

bool int8_quantizable(const std::string& name) {
  for (const char* tail : {"_proj.weight", ".fc1.weight", ".fc2.weight", ".ssru_input.weight",
                           ".ssru_forget.weight", "embed_tokens"})
    if (core::ends_with(name, tail)) return true;
  return name == "output.weight";
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

Checkpoint::Checkpoint(const std::string& dir) : dir_(dir), json_path_(dir + "/model.json") {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) throw ModelError(dir + ": model directory: " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    throw ModelError(dir + ": not a directory (a model is a directory with model.json)");
  const nlohmann::json meta = read_json(json_path_);
  JsonObject top(meta, json_path_, "");
  top.expect_keys({"format", "version", "config", "tokens", "decoding", "tokenizer", "weights", "tensors"},
                  {"source_lang", "target_lang"});
  if (top.string("format") != "nmt-checkpoint") top.fail("format", "expected 'nmt-checkpoint'");
  const int64_t version = top.integer("version", 0, 1000000);
  if (version != 1)
    top.fail("version", "version " + std::to_string(version) + " is not supported (expected 1)");
  description_ = parse_description(meta, json_path_);

  JsonObject weights = top.object("weights");
  weights.expect_keys({"file", "size", "crc32"});
  const std::string file = weights.string("file");
  if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..") {
    weights.fail("file", "must be a plain file name inside the model directory");
  }
  const uint64_t size =
      static_cast<uint64_t>(weights.integer("size", 0, std::numeric_limits<int64_t>::max()));
  const std::string crc = weights.string("crc32");
  if (crc.size() != 8 || crc.find_first_not_of("0123456789abcdef") != std::string::npos) {
    weights.fail("crc32", "expected 8 lower-case hex digits");
  }
  blob_size_ = size;
  parse_tensor_table(top.array("tensors"));
  open_blob(file, size, crc);
}

void Checkpoint::parse_tensor_table(const nlohmann::json& table) {
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string path = "tensors[" + std::to_string(i) + "]";
    JsonObject o(table[i], json_path_, path);
    o.expect_keys({"name", "dtype", "shape", "offset", "nbytes"});
    TensorEntry t;
    t.name = o.string("name");
    const std::string dtype = o.choice("dtype", {"f32", "f16", "i8"});
    t.dtype = dtype == "f32" ? DType::kF32 : dtype == "f16" ? DType::kF16 : DType::kI8;
    const auto& shape = o.array("shape");
    if (shape.empty() || shape.size() > 4) o.fail("shape", "expected 1 to 4 dimensions");
    uint64_t elements = 1;
    for (const auto& dim : shape) {
      if (!dim.is_number_integer() || dim.get<int64_t>() < 1 || dim.get<int64_t>() > kMaxDimension) {
        o.fail("shape", "'" + t.name + "': dimensions must be integers in [1, 2^31]");
      }
      t.shape.push_back(dim.get<int64_t>());
      // Each factor < 2^31 and at most 4 of them: check before it can overflow 64 bits.
      if (elements > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(t.shape.back())) {
        o.fail("shape", "'" + t.name + "': too many elements");
      }
      elements *= static_cast<uint64_t>(t.shape.back());
    }
    t.offset = static_cast<uint64_t>(o.integer("offset", 0, std::numeric_limits<int64_t>::max()));
    t.nbytes = static_cast<uint64_t>(o.integer("nbytes", 0, std::numeric_limits<int64_t>::max()));
    if (elements > std::numeric_limits<uint64_t>::max() / 4 || t.nbytes != elements * item_size(t.dtype)) {
      o.fail("nbytes", "'" + t.name + "': " + std::to_string(t.nbytes) + " bytes does not match shape " +
                           shape_to_string(t.shape) + " x " + std::to_string(item_size(t.dtype)) + " bytes");
    }
    if (t.offset % kAlignment != 0) o.fail("offset", "'" + t.name + "': not 64-byte aligned");
    if (t.offset > blob_size_ || t.nbytes > blob_size_ - t.offset) {
      o.fail("offset", "'" + t.name + "': bytes [" + std::to_string(t.offset) + ", " +
                           std::to_string(t.offset + t.nbytes) + ") lie outside the " +
                           std::to_string(blob_size_) + "-byte blob");
    }
    if (index_.count(t.name)) o.fail("name", "tensor '" + t.name + "' appears twice");
    index_[t.name] = tensors_.size();
    tensors_.push_back(std::move(t));
  }
  std::vector<const TensorEntry*> by_offset;
  for (const auto& t : tensors_) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorEntry* a, const TensorEntry* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i - 1]->offset + by_offset[i - 1]->nbytes > by_offset[i]->offset) {
      throw ModelError(json_path_ + ": tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name +
                       "' overlap in the blob");
    }
  }
  // The blob holds the tensors and nothing else, checked before a byte of it is read: a huge declared
  // blob (a sparse file) would otherwise be checksummed whole at every load.
  const uint64_t extent = by_offset.empty() ? 0 : by_offset.back()->offset + by_offset.back()->nbytes;
  if (extent != blob_size_) {
    throw ModelError(json_path_ + ": weights.size is " + std::to_string(blob_size_) +
                     " bytes, but the tensors end at byte " + std::to_string(extent) +
                     " (the blob holds the tensors and nothing else)");
  }
}

void Checkpoint::open_blob(const std::string& file, uint64_t size, const std::string& crc_hex) {
  blob_path_ = dir_ + "/" + file;
  struct stat st;
  core::UniqueFd fd;
  try {
    fd = core::open_regular_file(blob_path_, "weights file", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  if (static_cast<uint64_t>(st.st_size) != size) {
    throw ModelError(blob_path_ + ": " + std::to_string(st.st_size) + " bytes, but model.json says " +
                     std::to_string(size) +
                     (static_cast<uint64_t>(st.st_size) < size ? " (truncated?)" : ""));
  }
  const uint32_t crc = file_crc32(fd.get(), blob_path_, size);
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));
  if (crc_hex != hex) {
    throw ModelError(blob_path_ + ": checksum mismatch (crc32 " + hex + ", model.json says " + crc_hex +
                     "): the file is corrupt or from another model");
  }
  blob_fd_ = std::move(fd);
}

const TensorEntry& Checkpoint::entry(const std::string& name, const std::vector<int64_t>& shape) {
  auto it = index_.find(name);
  if (it == index_.end()) {
    throw ModelError(json_path_ + ": missing tensor '" + name + "' (expected shape " +
                     shape_to_string(shape) + ")");
  }
  const TensorEntry& t = tensors_[it->second];
  if (t.shape != shape) {
    throw ModelError(json_path_ + ": tensor '" + name + "': expected shape " + shape_to_string(shape) +
                     ", got " + shape_to_string(t.shape));
  }
  used_.insert(name);
  return t;
}

void Checkpoint::read(const TensorEntry& t, uint64_t offset, uint64_t n, void* dst) const {
  if (offset > t.nbytes || n > t.nbytes - offset)
    throw ModelError(blob_path_ + ": read past the end of tensor '" + t.name + "'");
  read_exactly(blob_fd_.get(), blob_path_, t.offset + offset, n, dst);
}

const TensorEntry* Checkpoint::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorEntry& Checkpoint::int8_entry(const std::string& name, const std::vector<int64_t>& shape,
                                          const float** scales) {
  const TensorEntry& t = entry(name, shape);
  if (t.dtype != DType::kI8) throw ModelError(json_path_ + ": tensor '" + name + "': expected dtype i8");
  const float* s = get(name + ".scales", {shape[0]});
  for (int64_t r = 0; r < shape[0]; ++r) {
    if (!std::isfinite(s[r]) || !(s[r] > 0.0f))
      throw ModelError(json_path_ + ": tensor '" + name + ".scales': row " + std::to_string(r) +
                       " has scale " + std::to_string(s[r]) + " (expected finite and positive)");
  }
  *scales = s;
  return t;
}

void Checkpoint::check_finite(const TensorEntry& t, const void* data, uint64_t n) const {
  if (t.dtype == DType::kI8) return;  // integers are always finite
  const bool finite = t.dtype == DType::kF32
                          ? core::all_finite_f32(static_cast<const float*>(data), n / 4)
                          : core::all_finite_f16(static_cast<const uint16_t*>(data), n / 2);
  if (!finite) {
    throw ModelError(blob_path_ + ": tensor '" + t.name +
                     "' holds NaN or infinite values (the model would translate nothing)");
  }
}

const float* Checkpoint::get(const std::string& name, const std::vector<int64_t>& shape) {
  const TensorEntry& t = entry(name, shape);
  if (t.dtype == DType::kI8)
    throw ModelError(json_path_ + ": tensor '" + name +
                     "': dtype i8 is only for linear weights and embeddings");
  // Copied into memory this process owns, never used through a mapping: a running translation must not
  // depend on the file staying as it was (a truncated file would kill it with SIGBUS).
  auto& converted = converted_[name];
  if (converted.empty()) {
    if (t.dtype == DType::kF32) {
      converted.resize(t.nbytes / 4);
      read(t, 0, t.nbytes, converted.data());
      check_finite(t, converted.data(), t.nbytes);
    } else {
      std::vector<uint16_t> half(t.nbytes / 2);
      read(t, 0, t.nbytes, half.data());
      check_finite(t, half.data(), t.nbytes);
      converted.resize(half.size());
      core::half_to_float(half.data(), converted.data(), converted.size());
    }
  }
  return converted.data();
}

void Checkpoint::check_all_used() const {
  for (const auto& t : tensors_) {
    if (!used_.count(t.name)) {
      throw ModelError(json_path_ + ": unexpected tensor '" + t.name + "' for this configuration");
    }
  }
}

}  // namespace models
