#include "models/convert/convert_nmt.h"

#include <cstring>
#include <set>
#include <vector>

#include "core/ends_with.h"
#include "core/half.h"
#include "models/checkpoint.h"
#include "models/convert/release_languages.h"

namespace models {

namespace {

// A tensor's values as f32: f16 widened, i8 rows times their scales.
std::vector<float> read_values(Checkpoint& ckpt, const TensorEntry& t) {
  uint64_t n = 1;
  for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
  std::vector<float> values(n);
  if (t.dtype == DType::kI8) {
    const float* scales = nullptr;
    ckpt.int8_entry(t.name, t.shape, &scales);
    std::vector<int8_t> q(n);
    ckpt.read(t, 0, n, q.data());
    const uint64_t in = n / static_cast<uint64_t>(t.shape[0]);
    for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<float>(q[i]) * scales[i / in];
  } else {
    const float* f = ckpt.get(t.name, t.shape);
    std::memcpy(values.data(), f, n * sizeof(float));
  }
  return values;
}

}  // namespace

ConvertReport convert_nmt(const std::string& source_dir, const ConvertOptions& options) {
  convert_detail::check_output_dir(options.output_dir, source_dir, options.force);
  Checkpoint ckpt(source_dir);
  bool all_f16 = true;
  std::vector<NamedTensor> tensors;
  for (const TensorEntry& t : ckpt.tensors()) {
    const TensorEntry* base =
        core::ends_with(t.name, ".scales") ? ckpt.find(t.name.substr(0, t.name.size() - 7)) : nullptr;
    if (base && base->dtype == DType::kI8) continue;  // folded into its i8 tensor
    // intgemm's weight multiplier holds only for the i8 values it came with, which are rewritten here.
    if (core::ends_with(t.name, kWeightMultiplierSuffix)) continue;
    all_f16 = all_f16 && t.dtype == DType::kF16;
    tensors.push_back({t.name, t.shape, read_values(ckpt, t)});
  }
  ModelDescription d = ckpt.description();
  apply_languages(d, {}, options);
  convert_detail::OutputFiles files;
  std::set<std::string> names = {d.tokenizer.source_spm, d.tokenizer.target_spm, d.tokenizer.source_vocab,
                                 d.tokenizer.target_vocab};
  for (const std::string& name : names)
    if (!name.empty()) files.copies.emplace_back(source_dir + "/" + name, name);
  const DType dtype = convert_detail::choose_dtype(options.dtype, all_f16);
  convert_detail::write_model(options, d, tensors, dtype, files);
  return convert_detail::make_report(options, d, tensors, dtype, {});
}

}  // namespace models
