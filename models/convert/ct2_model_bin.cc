#include "models/convert/ct2_model_bin.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "core/half.h"
#include "core/regular_file.h"
#include "models/checkpoint.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr size_t kMaxRank = 8;  // CTranslate2's tensors have rank 4 at most

int ct2_itemsize(Ct2DType dtype) {
  switch (dtype) {
    case Ct2DType::kF32:
    case Ct2DType::kI32:
      return 4;
    case Ct2DType::kI8:
      return 1;
    case Ct2DType::kI16:
    case Ct2DType::kF16:
    case Ct2DType::kBF16:
      return 2;
  }
  return 0;
}

// Reads little-endian fields from the file's bytes, each checked against what is left.
class Cursor {
 public:
  Cursor(const std::string& bytes, const Ct2ModelBin& file) : bytes_(bytes), file_(file) {}

  uint64_t pos() const { return pos_; }
  uint64_t left() const { return bytes_.size() - pos_; }

  template <typename T>
  T number(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  // uint16 length including a terminating NUL, then the bytes (CTranslate2's _write_string).
  std::string string(const char* what) {
    const uint16_t length = number<uint16_t>(what);
    if (length == 0) file_.fail(std::string(what) + " at byte " + std::to_string(pos_ - 2) + " has length 0");
    need(length, what);
    std::string s(bytes_.data() + pos_, length - 1u);
    if (bytes_[pos_ + length - 1] != '\0')
      file_.fail(std::string(what) + " '" + s + "' is not NUL-terminated");
    pos_ += length;
    return s;
  }

  void skip(uint64_t n, const std::string& what) {
    need(n, what.c_str());
    pos_ += n;
  }

 private:
  void need(uint64_t n, const char* what) const {
    if (n > left()) {
      file_.fail(std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes at byte " +
                 std::to_string(pos_) + ", " + std::to_string(left()) + " left");
    }
  }

  const std::string& bytes_;
  const Ct2ModelBin& file_;
  uint64_t pos_ = 0;
};

}  // namespace

const char* ct2_dtype_name(Ct2DType dtype) {
  static const char* const kNames[] = {"float32", "int8", "int16", "int32", "float16", "bfloat16"};
  return kNames[static_cast<int>(dtype)];
}

void Ct2ModelBin::fail(const std::string& problem) const { throw ModelError(path_ + ": " + problem); }

Ct2ModelBin Ct2ModelBin::read(const std::string& path) {
  std::string bytes;
  try {
    bytes = core::read_regular_file(path, "CTranslate2 model", kMaxCt2ModelBytes);
  } catch (const ModelError&) {
    throw;
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  return parse(std::move(bytes), path);
}

Ct2ModelBin Ct2ModelBin::parse(std::string bytes, const std::string& path) {
  Ct2ModelBin m;
  m.path_ = path;
  m.bytes_ = std::move(bytes);
  Cursor in(m.bytes_, m);
  m.binary_version_ = in.number<uint32_t>("the binary version");
  if (m.binary_version_ < kCt2MinBinaryVersion || m.binary_version_ > kCt2MaxBinaryVersion) {
    m.fail("binary version " + std::to_string(m.binary_version_) + " is not supported (versions " +
           std::to_string(kCt2MinBinaryVersion) + " to " + std::to_string(kCt2MaxBinaryVersion) +
           " are: CTranslate2 2.x to 4.x)");
  }
  m.spec_ = in.string("the spec name");
  m.revision_ = in.number<uint32_t>("the spec revision");
  const uint32_t count = in.number<uint32_t>("the variable count");
  for (uint32_t i = 0; i < count; ++i) {
    Ct2Variable v;
    v.name = in.string("a variable name");
    const std::string what = "variable '" + v.name + "'";
    const uint8_t rank = in.number<uint8_t>("a variable rank");
    if (rank > kMaxRank)
      m.fail(what + ": rank " + std::to_string(rank) + " is above " + std::to_string(kMaxRank));
    uint64_t elements = 1;
    for (uint8_t d = 0; d < rank; ++d) {
      const uint32_t dim = in.number<uint32_t>("a variable dimension");
      v.shape.push_back(dim);
      // Below 2^64 / 2^32 the next product cannot overflow; anything larger exceeds the file anyway.
      if (dim != 0 && elements > kMaxCt2ModelBytes / dim) m.fail(what + ": shape is larger than the file");
      elements *= dim;
    }
    if (m.binary_version_ >= 4) {
      const uint8_t type_id = in.number<uint8_t>("a variable dtype");
      if (type_id > static_cast<uint8_t>(Ct2DType::kBF16))
        m.fail(what + ": unknown dtype id " + std::to_string(type_id));
      v.dtype = static_cast<Ct2DType>(type_id);
      v.nbytes = in.number<uint32_t>("a variable size");
    } else {
      const uint8_t size = in.number<uint8_t>("a variable item size");
      if (size == 4)
        v.dtype = Ct2DType::kF32;
      else if (size == 2)
        v.dtype = Ct2DType::kI16;
      else if (size == 1)
        v.dtype = Ct2DType::kI8;
      else
        m.fail(what + ": unknown item size " + std::to_string(size));
      v.nbytes = uint64_t{in.number<uint32_t>("a variable element count")} * size;
    }
    if (v.nbytes != elements * ct2_itemsize(v.dtype)) {
      m.fail(what + ": " + std::to_string(v.nbytes) + " bytes for shape " + shape_to_string(v.shape) +
             " of " + ct2_dtype_name(v.dtype) + " (expected " +
             std::to_string(elements * ct2_itemsize(v.dtype)) + ")");
    }
    v.offset = in.pos();
    in.skip(v.nbytes, "the data of " + what);
    if (m.index_.count(v.name)) m.fail(what + " appears twice");
    m.index_.emplace(v.name, m.variables_.size());
    m.variables_.push_back(std::move(v));
  }
  if (m.binary_version_ >= 3) {
    const uint32_t aliases = in.number<uint32_t>("the alias count");
    for (uint32_t i = 0; i < aliases; ++i) {
      std::string alias = in.string("an alias");
      std::string target = in.string("an alias target");
      if (!m.index_.count(target)) m.fail("alias '" + alias + "' names no variable ('" + target + "')");
      if (m.index_.count(alias) || m.aliases_.count(alias)) m.fail("alias '" + alias + "' is defined twice");
      m.aliases_.emplace(std::move(alias), std::move(target));
    }
  }
  if (in.left() != 0) m.fail(std::to_string(in.left()) + " bytes follow the last alias");
  return m;
}

const Ct2Variable* Ct2ModelBin::find(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) {
    // CTranslate2 also aliases the scale of an aliased weight.
    const bool scale = name.size() > 6 && name.compare(name.size() - 6, 6, "_scale") == 0;
    auto a = aliases_.find(scale ? name.substr(0, name.size() - 6) : name);
    if (a == aliases_.end()) return nullptr;
    it = index_.find(scale ? a->second + "_scale" : a->second);
    if (it == index_.end()) return nullptr;
  }
  return &variables_[it->second];
}

double Ct2ModelBin::scalar(const std::string& name, double fallback) const {
  const Ct2Variable* v = find(name);
  if (!v) return fallback;
  if (!v->shape.empty())
    fail("variable '" + name + "': expected a scalar, got shape " + shape_to_string(v->shape));
  const char* p = bytes_.data() + v->offset;
  switch (v->dtype) {
    case Ct2DType::kI8:
      return static_cast<int8_t>(*p);
    case Ct2DType::kI16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case Ct2DType::kI32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case Ct2DType::kF32: {
      float x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case Ct2DType::kF16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return core::half_to_float(x);
    }
    case Ct2DType::kBF16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      const uint32_t bits = uint32_t{x} << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
  return fallback;
}

std::vector<float> Ct2ModelBin::read_f32(const std::string& name) const {
  const Ct2Variable* v = find(name);
  if (!v) fail("missing variable '" + name + "'");
  const size_t n = v->nbytes / ct2_itemsize(v->dtype);
  const char* p = bytes_.data() + v->offset;
  std::vector<float> out(n);
  switch (v->dtype) {
    case Ct2DType::kF32:
      std::memcpy(out.data(), p, n * 4);
      return out;
    case Ct2DType::kF16: {
      std::vector<uint16_t> h(n);
      std::memcpy(h.data(), p, n * 2);
      core::half_to_float(h.data(), out.data(), n);
      return out;
    }
    case Ct2DType::kBF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t x;
        std::memcpy(&x, p + 2 * i, 2);
        const uint32_t bits = uint32_t{x} << 16;
        std::memcpy(&out[i], &bits, 4);
      }
      return out;
    case Ct2DType::kI8:
    case Ct2DType::kI16: {
      const Ct2Variable* s = find(name + "_scale");
      if (!s)
        fail("variable '" + name + "' is " + ct2_dtype_name(v->dtype) + " but has no '" + name + "_scale'");
      const std::vector<float> scales = read_f32(s->name);
      // int8: one scale per row; int16: one for the whole tensor.
      const size_t rows =
          v->dtype == Ct2DType::kI8 && v->shape.size() >= 1 ? static_cast<size_t>(v->shape[0]) : 1;
      if (scales.size() != rows || (v->dtype == Ct2DType::kI8 && v->shape.size() != 2)) {
        fail("variable '" + s->name + "': shape " + shape_to_string(s->shape) + " does not fit '" + name +
             "' " + shape_to_string(v->shape));
      }
      const size_t cols = rows == 0 ? 0 : n / rows;
      for (size_t r = 0; r < rows; ++r) {
        if (!(scales[r] > 0) || !std::isfinite(scales[r]))
          fail("variable '" + s->name + "': row " + std::to_string(r) + " has scale " +
               std::to_string(scales[r]));
        const float inverse = 1.f / scales[r];
        for (size_t c = 0; c < cols; ++c) {
          const size_t i = r * cols + c;
          if (v->dtype == Ct2DType::kI8) {
            out[i] = static_cast<float>(static_cast<int8_t>(p[i])) * inverse;
          } else {
            int16_t x;
            std::memcpy(&x, p + 2 * i, 2);
            out[i] = static_cast<float>(x) * inverse;
          }
        }
      }
      return out;
    }
    case Ct2DType::kI32:
      break;
  }
  fail("variable '" + name + "' is " + ct2_dtype_name(v->dtype) + ", not a weight type");
}

}  // namespace models
