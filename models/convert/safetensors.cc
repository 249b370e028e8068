#include "models/convert/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_depth.h"
#include "core/regular_file.h"
#include "models/checkpoint.h"
#include "models/model_error.h"

namespace models {

namespace {

// OPUS-MT headers are under 100 kB; the format's own 100 MB limit lets a header's parse tree take gigabytes.
constexpr uint64_t kMaxHeader = 1u << 20;
constexpr size_t kMaxHeaderDepth = 64;  // a valid header nests 3 levels

struct DTypeInfo {
  const char* name;
  int itemsize;
  bool supported;
  SourceDType dtype;
};

// Every dtype the format defines, so an unsupported one is named rather than called "unknown".
const DTypeInfo kDTypes[] = {
    {"F32", 4, true, SourceDType::kF32},
    {"F16", 2, true, SourceDType::kF16},
    {"BF16", 2, true, SourceDType::kBF16},
    {"F64", 8, false, {}},
    {"I64", 8, false, {}},
    {"U64", 8, false, {}},
    {"I32", 4, false, {}},
    {"U32", 4, false, {}},
    {"I16", 2, false, {}},
    {"U16", 2, false, {}},
    {"I8", 1, false, {}},
    {"U8", 1, false, {}},
    {"BOOL", 1, false, {}},
    {"F8_E5M2", 1, false, {}},
    {"F8_E4M3", 1, false, {}},
};

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path) : TensorSource(path) {
  struct stat st;
  core::UniqueFd fd;
  try {
    fd = core::open_regular_file(path, "safetensors file", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  map_size_ = static_cast<uint64_t>(st.st_size);
  if (map_size_ < 8)
    fail("file too short for a safetensors header (" + std::to_string(map_size_) + " bytes)");
  void* p = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  fd.reset();
  if (p == MAP_FAILED) fail(std::string("cannot map: ") + std::strerror(errno));
  map_ = static_cast<const uint8_t*>(p);
  try {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | map_[i];  // little-endian u64
    if (n > kMaxHeader)
      fail("header length " + std::to_string(n) + " is larger than the " + std::to_string(kMaxHeader >> 20) +
           " MiB limit");
    if (n > map_size_ - 8) {
      fail("header length " + std::to_string(n) + " exceeds the file (" + std::to_string(map_size_) +
           " bytes)");
    }
    set_tensors(parse_header(std::string(reinterpret_cast<const char*>(map_ + 8), n), map_size_ - 8 - n),
                map_ + 8 + n);
  } catch (...) {
    ::munmap(const_cast<uint8_t*>(map_), map_size_);
    map_ = nullptr;
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(const_cast<uint8_t*>(map_), map_size_);
}

std::vector<SourceTensor> SafetensorsFile::parse_header(const std::string& text, uint64_t data_size) {
  std::vector<SourceTensor> tensors;
  if (text.empty() || text[0] != '{') fail("header is not a JSON object");
  if (core::json_nests_deeper_than(text, kMaxHeaderDepth))
    fail("header nests more than " + std::to_string(kMaxHeaderDepth) + " levels deep");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail("header is not a JSON object");
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) fail("__metadata__ must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m->is_string()) fail("__metadata__." + m.key() + " must be a string");
        metadata_[m.key()] = m->get<std::string>();
      }
      continue;
    }
    const std::string what = "tensor '" + name + "': ";
    if (!v.is_object()) fail(what + "entry must be an object");
    for (auto k = v.begin(); k != v.end(); ++k) {
      if (k.key() != "dtype" && k.key() != "shape" && k.key() != "data_offsets") {
        fail(what + "unknown key '" + k.key() + "'");
      }
    }
    if (!v.contains("dtype") || !v["dtype"].is_string()) fail(what + "dtype missing or not a string");
    if (!v.contains("shape") || !v["shape"].is_array()) fail(what + "shape missing or not an array");
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() || v["data_offsets"].size() != 2) {
      fail(what + "data_offsets must be [begin, end]");
    }
    SourceTensor t;
    t.name = name;
    const std::string dtype = v["dtype"].get<std::string>();
    const DTypeInfo* info = nullptr;
    for (const auto& d : kDTypes) {
      if (dtype == d.name) info = &d;
    }
    if (!info) fail(what + "unknown dtype '" + dtype + "'");
    if (!info->supported) fail(what + "dtype " + dtype + " is not supported (F32, F16 or BF16 weights only)");
    t.dtype = info->dtype;
    uint64_t elements = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > (int64_t{1} << 40)) {
        fail(what + "shape entries must be non-negative integers");
      }
      const uint64_t x = d.get<uint64_t>();
      if (x != 0 && elements > (uint64_t{1} << 62) / x)
        fail(what + "shape " + v["shape"].dump() + " is too large");
      elements *= x;
      t.shape.push_back(static_cast<int64_t>(x));
    }
    for (const auto& o : v["data_offsets"]) {
      if (!o.is_number_unsigned()) fail(what + "data_offsets must be non-negative integers");
    }
    t.begin = v["data_offsets"][0].get<uint64_t>();
    t.end = v["data_offsets"][1].get<uint64_t>();
    if (t.begin > t.end) fail(what + "data_offsets begin > end");
    if (t.end > data_size) {
      fail(what + "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
           "] run past the data buffer (" + std::to_string(data_size) + " bytes)");
    }
    const uint64_t nbytes = elements * static_cast<uint64_t>(info->itemsize);
    if (t.end - t.begin != nbytes) {
      fail(what + "shape " + shape_to_string(t.shape) + " " + dtype + " needs " + std::to_string(nbytes) +
           " bytes, data_offsets span " + std::to_string(t.end - t.begin));
    }
    tensors.push_back(std::move(t));
  }
  std::vector<const SourceTensor*> by_offset;
  for (const auto& t : tensors) {
    if (t.end > t.begin) by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const SourceTensor* a, const SourceTensor* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      fail("tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name + "' overlap");
    }
  }
  return tensors;
}

}  // namespace models
