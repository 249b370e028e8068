// A restricted unpickler for PyTorch state dicts (pytorch_model.bin). It understands the opcodes
// torch.save writes (protocol 2, and the few protocol 4 framing opcodes) and exactly these globals:
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 and the float storage types. Anything else is
// refused at once, naming the global or opcode: it never imports, calls or executes anything, and every
// length it reads is checked against the bytes that remain before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/convert/tensor_source.h"

namespace models {

enum class PickleKind {
  kNone,
  kBool,
  kInt,     // fits int64
  kBigInt,  // LONG1 wider than 8 bytes: little-endian two's complement bytes in `text`
  kFloat,
  kString,
  kTuple,
  kList,
  kDict,     // `items`: key, value, key, value, ... in insertion order
  kGlobal,   // an allowed global, "module.name" in `text`
  kStorage,  // a persistent id ('storage', type, key, location, numel[, view])
  kTensor,   // torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)
};

// One storage a tensor refers to: its element type, key (the archive member data/KEY, or the legacy
// file's storage key) and element count as the pickle declares them.
struct TorchStorageRef {
  SourceDType dtype = SourceDType::kF32;
  std::string key;
  uint64_t numel = 0;
};

struct TorchTensorRef {
  TorchStorageRef storage;
  uint64_t offset = 0;  // in elements
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
};

struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  int64_t number = 0;  // kInt, kBool (0 or 1)
  double real = 0;     // kFloat
  std::string text;    // kString, kGlobal, kBigInt
  std::vector<std::shared_ptr<PickleValue>> items;
  TorchStorageRef storage;  // kStorage
  TorchTensorRef tensor;    // kTensor
  int depth = 1;            // containers nest at most kMaxPickleDepth levels
  bool sealed = false;      // inside another container: no opcode adds to it any more
};
using PickleRef = std::shared_ptr<PickleValue>;

// A state dict's nesting is 4 levels; a bound keeps hostile nesting from exhausting the stack.
constexpr int kMaxPickleDepth = 32;

// Reads one pickle from `data` (up to its STOP opcode) and returns its value; *consumed is how many bytes
// it took. `where` names the file in messages: ModelError "WHERE: refusing pickle global 'posix.system'".
PickleRef read_pickle(const uint8_t* data, size_t size, size_t* consumed, const std::string& where);

}  // namespace models
