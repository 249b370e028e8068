#include "models/parameter_count.h"

#include <string_view>

namespace models {

uint64_t parameter_count(const Checkpoint& checkpoint) {
  constexpr std::string_view kScales = ".scales";
  uint64_t n = 0;
  for (const TensorEntry& t : checkpoint.tensors()) {
    const bool scales = t.name.size() > kScales.size() &&
                        t.name.compare(t.name.size() - kScales.size(), kScales.size(), kScales) == 0;
    const TensorEntry* of =
        scales ? checkpoint.find(t.name.substr(0, t.name.size() - kScales.size())) : nullptr;
    if (of && of->dtype == DType::kI8) continue;
    uint64_t elements = 1;
    for (int64_t d : t.shape) elements *= static_cast<uint64_t>(d);
    n += elements;
  }
  return n;
}

}  // namespace models
