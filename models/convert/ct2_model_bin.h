// A CTranslate2 model.bin (its spec serialization, python/ctranslate2/specs/model_spec.py): the binary
// version, spec name and revision, the variables (name, shape, dtype, bytes) and their aliases. Every
// count and size is checked against the bytes left before anything is taken from it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace models {

// The DataType enum of CTranslate2's include/ctranslate2/types.h, in its order.
enum class Ct2DType : uint8_t { kF32 = 0, kI8 = 1, kI16 = 2, kI32 = 3, kF16 = 4, kBF16 = 5 };

const char* ct2_dtype_name(Ct2DType dtype);  // "float32", "int8", ...

struct Ct2Variable {
  std::string name;
  Ct2DType dtype = Ct2DType::kF32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // into the file's bytes
  uint64_t nbytes = 0;
};

// Largest model.bin read: the biggest CTranslate2 translation models are a few GB.
constexpr uint64_t kMaxCt2ModelBytes = 16ull << 30;
// Binary versions 2 (the first with a spec name) to 6 (CTranslate2 4.x).
constexpr uint32_t kCt2MinBinaryVersion = 2;
constexpr uint32_t kCt2MaxBinaryVersion = 6;

class Ct2ModelBin {
 public:
  // Reads and checks `path` (a regular file of at most kMaxCt2ModelBytes). Throws ModelError naming it.
  static Ct2ModelBin read(const std::string& path);
  // The same on bytes already read; `path` names them in messages.
  static Ct2ModelBin parse(std::string bytes, const std::string& path);

  const std::string& path() const { return path_; }
  uint32_t binary_version() const { return binary_version_; }
  const std::string& spec() const { return spec_; }
  uint32_t revision() const { return revision_; }
  const std::vector<Ct2Variable>& variables() const { return variables_; }

  // The variable `name` names directly or through an alias; nullptr when neither.
  const Ct2Variable* find(const std::string& name) const;
  bool has(const std::string& name) const { return find(name) != nullptr; }
  // A scalar attribute (any integer or float dtype) as a double; `fallback` when absent. ModelError when
  // `name` is not a scalar.
  double scalar(const std::string& name, double fallback) const;
  // The values as float32: float16 and bfloat16 widened exactly, int8 rows times 1/scale from the per-row
  // `NAME_scale`, int16 times 1/scale of its scalar `NAME_scale` (as CTranslate2 dequantizes).
  std::vector<float> read_f32(const std::string& name) const;

  [[noreturn]] void fail(const std::string& problem) const;

 private:
  Ct2ModelBin() = default;
  std::string path_;
  std::string bytes_;
  uint32_t binary_version_ = 0;
  std::string spec_;
  uint32_t revision_ = 1;
  std::vector<Ct2Variable> variables_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> aliases_;
};

}  // namespace models
