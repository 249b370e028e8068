#include "models/convert/tensor_source.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/half.h"
#include "core/regular_file.h"
#include "models/convert/safetensors.h"
#include "models/convert/torch_checkpoint.h"
#include "models/model_error.h"

namespace models {

const char* source_dtype_name(SourceDType dtype) {
  switch (dtype) {
    case SourceDType::kF32:
      return "F32";
    case SourceDType::kF16:
      return "F16";
    case SourceDType::kBF16:
      return "BF16";
  }
  return "?";
}

int source_itemsize(SourceDType dtype) { return dtype == SourceDType::kF32 ? 4 : 2; }

void TensorSource::fail(const std::string& problem) const { throw ModelError(path_ + ": " + problem); }

void TensorSource::set_tensors(std::vector<SourceTensor> tensors, const uint8_t* data) {
  std::sort(tensors.begin(), tensors.end(),
            [](const SourceTensor& a, const SourceTensor& b) { return a.name < b.name; });
  tensors_ = std::move(tensors);
  data_ = data;
  index_.clear();
  for (size_t i = 0; i < tensors_.size(); ++i) index_[tensors_[i].name] = i;
}

const SourceTensor& TensorSource::tensor(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) fail("no tensor '" + name + "'");
  return tensors_[it->second];
}

const uint8_t* TensorSource::raw(const std::string& name, uint64_t* nbytes) const {
  const SourceTensor& t = tensor(name);
  *nbytes = t.end - t.begin;
  return data_ + t.begin;
}

std::vector<float> TensorSource::read_f32(const std::string& name) const {
  const SourceTensor& t = tensor(name);
  const uint8_t* src = data_ + t.begin;
  const size_t n = static_cast<size_t>((t.end - t.begin) / source_itemsize(t.dtype));
  std::vector<float> out(n);
  switch (t.dtype) {
    case SourceDType::kF32:
      if (n) std::memcpy(out.data(), src, n * sizeof(float));
      break;
    case SourceDType::kF16: {
      std::vector<uint16_t> h(n);
      if (n) std::memcpy(h.data(), src, n * sizeof(uint16_t));
      core::half_to_float(h.data(), out.data(), n);
      break;
    }
    case SourceDType::kBF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        const uint32_t bits = static_cast<uint32_t>(b) << 16;
        std::memcpy(&out[i], &bits, 4);
      }
      break;
  }
  return out;
}

std::unique_ptr<TensorSource> open_tensor_source(const std::string& path) {
  std::string head(4, '\0');
  try {
    const core::UniqueFd fd = core::open_regular_file(path, "model weights", nullptr);
    const ssize_t got = ::pread(fd.get(), &head[0], head.size(), 0);
    head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  if (looks_like_torch_checkpoint(head)) return std::make_unique<TorchCheckpoint>(path);
  return std::make_unique<SafetensorsFile>(path);
}

}  // namespace models
