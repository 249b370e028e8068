#include "models/convert/pickle_reader.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "models/model_error.h"

namespace models {

namespace {

constexpr const char* kOrderedDict = "collections.OrderedDict";
constexpr const char* kRebuildTensor = "torch._utils._rebuild_tensor_v2";

// The storage types torch.save names: torch.FloatStorage and friends, and the torch.cuda ones that
// checkpoints saved from a GPU by older torch versions carry (their bytes are the same).
bool storage_dtype(const std::string& global, SourceDType* dtype) {
  std::string name = global;
  if (name.rfind("torch.cuda.", 0) == 0) name = "torch." + name.substr(11);
  if (name == "torch.FloatStorage")
    *dtype = SourceDType::kF32;
  else if (name == "torch.HalfStorage")
    *dtype = SourceDType::kF16;
  else if (name == "torch.BFloat16Storage")
    *dtype = SourceDType::kBF16;
  else
    return false;
  return true;
}

bool allowed_global(const std::string& name) {
  SourceDType unused;
  return name == kOrderedDict || name == kRebuildTensor || storage_dtype(name, &unused);
}

class Unpickler {
 public:
  Unpickler(const uint8_t* data, size_t size, const std::string& where)
      : p_(data), size_(size), where_(where) {}

  PickleRef run(size_t* consumed) {
    while (true) {
      const size_t at = pos_;
      const uint8_t op = byte();
      switch (op) {
        case 0x80:  // PROTO
          if (byte() > 5) fail(at, "pickle protocol above 5");
          break;
        case 0x95:  // FRAME: a length hint only
          bytes(8);
          break;
        case '.': {  // STOP
          if (stack_.size() != 1 || !marks_.empty()) fail(at, "STOP with an unbalanced stack");
          *consumed = pos_;
          return stack_.back();
        }
        case '(':
          marks_.push_back(stack_.size());
          break;
        case '}':
          push(make(PickleKind::kDict));
          break;
        case ']':
          push(make(PickleKind::kList));
          break;
        case ')':
          push(make(PickleKind::kTuple));
          break;
        case 'N':
          push(make(PickleKind::kNone));
          break;
        case 0x88:
        case 0x89: {  // NEWTRUE, NEWFALSE
          PickleRef v = make(PickleKind::kBool);
          v->number = op == 0x88;
          push(v);
          break;
        }
        case 'q':
          memo_[byte()] = top(at);
          break;
        case 'r':
          memo_[static_cast<uint32_t>(le(4))] = top(at);
          break;
        case 0x94:  // MEMOIZE
          memo_[static_cast<uint32_t>(memo_.size())] = top(at);
          break;
        case 'h':
          push(memo(at, byte()));
          break;
        case 'j':
          push(memo(at, static_cast<uint32_t>(le(4))));
          break;
        case 'X':
          push(string(bytes(le(4))));
          break;
        case 0x8c:  // SHORT_BINUNICODE
          push(string(bytes(byte())));
          break;
        case 'K':
          push(integer(byte()));
          break;
        case 'M':
          push(integer(static_cast<int64_t>(le(2))));
          break;
        case 'J':
          push(integer(static_cast<int32_t>(static_cast<uint32_t>(le(4)))));
          break;
        case 0x8a:  // LONG1
          push(long1(bytes(byte())));
          break;
        case 'G': {  // BINFLOAT, big-endian
          const std::string b = bytes(8);
          uint64_t bits = 0;
          for (char c : b) bits = (bits << 8) | static_cast<uint8_t>(c);
          PickleRef v = make(PickleKind::kFloat);
          std::memcpy(&v->real, &bits, 8);
          push(v);
          break;
        }
        case 't':
          push(container(at, PickleKind::kTuple, pop_mark(at)));
          break;
        case 0x85:
        case 0x86:
        case 0x87:  // TUPLE1, TUPLE2, TUPLE3
          push(container(at, PickleKind::kTuple, pop_n(at, op - 0x84)));
          break;
        case 'c': {  // GLOBAL module\nname\n
          const std::string module = line(at);
          global(at, module + "." + line(at));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          std::vector<PickleRef> mn = pop_n(at, 2);
          if (mn[0]->kind != PickleKind::kString || mn[1]->kind != PickleKind::kString)
            fail(at, "STACK_GLOBAL without two strings");
          global(at, mn[0]->text + "." + mn[1]->text);
          break;
        }
        case 'Q':
          push(persistent_id(at, pop(at)));
          break;
        case 'R': {
          PickleRef args = pop(at), callable = pop(at);
          push(reduce(at, callable, args));
          break;
        }
        case 'b': {  // BUILD: only the state dict's _metadata attribute, which we do not need
          PickleRef state = pop(at);
          if (top(at)->kind != PickleKind::kDict ||
              (state->kind != PickleKind::kDict && state->kind != PickleKind::kNone))
            fail(at, "BUILD on something other than a dict");
          break;
        }
        case 's':
          add_items(at, pop_n(at, 2), PickleKind::kDict);
          break;
        case 'u':
          add_items(at, pop_mark(at), PickleKind::kDict);
          break;
        case 'a':
          add_items(at, pop_n(at, 1), PickleKind::kList);
          break;
        case 'e':
          add_items(at, pop_mark(at), PickleKind::kList);
          break;
        default:
          fail(at, "unsupported pickle opcode " + hex(op) + " (not part of a state dict)");
      }
    }
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& problem) const {
    throw ModelError(where_ + ": " + problem + " at byte " + std::to_string(at));
  }
  [[noreturn]] void truncated() const {
    throw ModelError(where_ + ": truncated pickle (" + std::to_string(size_) + " bytes, no STOP)");
  }
  static std::string hex(uint8_t op) {
    static const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[op >> 4] + digits[op & 15];
  }

  uint8_t byte() {
    if (pos_ >= size_) truncated();
    return p_[pos_++];
  }
  // n bytes, checked against what remains before anything is allocated.
  std::string bytes(uint64_t n) {
    if (n > size_ - pos_) truncated();
    std::string out(reinterpret_cast<const char*>(p_ + pos_), static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }
  uint64_t le(int n) {
    const std::string b = bytes(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
    return v;
  }
  std::string line(size_t at) {
    const void* nl = std::memchr(p_ + pos_, '\n', size_ - pos_);
    if (!nl) truncated();
    const size_t end = static_cast<const uint8_t*>(nl) - p_;
    if (end - pos_ > 256) fail(at, "GLOBAL name longer than 256 bytes");
    std::string out(reinterpret_cast<const char*>(p_ + pos_), end - pos_);
    pos_ = end + 1;
    return out;
  }

  static PickleRef make(PickleKind kind) {
    PickleRef v = std::make_shared<PickleValue>();
    v->kind = kind;
    return v;
  }
  static PickleRef string(std::string text) {
    PickleRef v = make(PickleKind::kString);
    v->text = std::move(text);
    return v;
  }
  static PickleRef integer(int64_t n) {
    PickleRef v = make(PickleKind::kInt);
    v->number = n;
    return v;
  }
  static PickleRef long1(const std::string& b) {
    if (b.size() > 8) {
      PickleRef v = make(PickleKind::kBigInt);
      v->text = b;
      return v;
    }
    uint64_t u = 0;
    for (size_t i = b.size(); i-- > 0;) u = (u << 8) | static_cast<uint8_t>(b[i]);
    if (!b.empty() && b.size() < 8 && (static_cast<uint8_t>(b.back()) & 0x80))
      u |= ~uint64_t{0} << (8 * b.size());
    return integer(static_cast<int64_t>(u));
  }

  void push(PickleRef v) { stack_.push_back(std::move(v)); }
  PickleRef top(size_t at) const {
    if (stack_.size() <= floor()) fail(at, "pickle stack underflow");
    return stack_.back();
  }
  PickleRef pop(size_t at) {
    PickleRef v = top(at);
    stack_.pop_back();
    return v;
  }
  std::vector<PickleRef> pop_n(size_t at, size_t n) {
    if (stack_.size() < floor() + n) fail(at, "pickle stack underflow");
    std::vector<PickleRef> out(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    return out;
  }
  std::vector<PickleRef> pop_mark(size_t at) {
    if (marks_.empty()) fail(at, "pickle opcode needs a MARK");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> out(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return out;
  }
  // Values below the innermost MARK belong to the enclosing opcode.
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  PickleRef memo(size_t at, uint32_t index) const {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail(at, "BINGET of memo entry " + std::to_string(index) + ", never stored");
    return it->second;
  }

  PickleRef container(size_t at, PickleKind kind, std::vector<PickleRef> items) {
    PickleRef v = make(kind);
    for (PickleRef& item : items) nest(at, v, std::move(item));
    return v;
  }
  // A value placed inside another is sealed: no later opcode may add to it. torch.save fills each
  // container before it nests it, and sealing keeps hostile input from building cycles (which would
  // never be freed) or nesting deeper than `depth` says through containers filled after nesting.
  void nest(size_t at, const PickleRef& target, PickleRef item) {
    if (item == target) fail(at, "a container inside itself");
    if (item->depth + 1 > kMaxPickleDepth)
      fail(at, "pickle nests deeper than " + std::to_string(kMaxPickleDepth));
    item->sealed = true;
    target->depth = std::max(target->depth, item->depth + 1);
    target->items.push_back(std::move(item));
  }
  void add_items(size_t at, std::vector<PickleRef> items, PickleKind kind) {
    PickleRef target = top(at);
    if (target->kind != kind)
      fail(at, kind == PickleKind::kDict ? "SETITEM(S) on something other than a dict"
                                         : "APPEND(S) on something other than a list");
    if (kind == PickleKind::kDict && items.size() % 2 != 0) fail(at, "SETITEMS with an odd number of values");
    if (target->sealed) fail(at, "adding to a container that is already inside another");
    for (PickleRef& item : items) nest(at, target, std::move(item));
  }

  void global(size_t at, const std::string& name) {
    if (!allowed_global(name)) fail(at, "refusing pickle global '" + name + "' (not part of a state dict)");
    PickleRef v = make(PickleKind::kGlobal);
    v->text = name;
    push(v);
  }

  // ('storage', torch.FloatStorage, key, location, numel) and the legacy format's trailing view (None).
  PickleRef persistent_id(size_t at, const PickleRef& pid) {
    const auto& t = pid->items;
    const bool ok = pid->kind == PickleKind::kTuple && (t.size() == 5 || t.size() == 6) &&
                    t[0]->kind == PickleKind::kString && t[0]->text == "storage" &&
                    t[1]->kind == PickleKind::kGlobal && t[2]->kind == PickleKind::kString &&
                    t[3]->kind == PickleKind::kString && t[4]->kind == PickleKind::kInt && t[4]->number >= 0;
    if (!ok) fail(at, "persistent id is not ('storage', type, key, location, size)");
    if (t.size() == 6 && t[5]->kind != PickleKind::kNone)
      fail(at, "storage '" + t[2]->text + "' is a view of another storage, which is not supported");
    PickleRef v = make(PickleKind::kStorage);
    if (!storage_dtype(t[1]->text, &v->storage.dtype))
      fail(at, "storage type '" + t[1]->text + "' is not a float storage (F32, F16 or BF16 weights only)");
    v->storage.key = t[2]->text;
    v->storage.numel = static_cast<uint64_t>(t[4]->number);
    return v;
  }

  PickleRef reduce(size_t at, const PickleRef& callable, const PickleRef& args) {
    if (callable->kind != PickleKind::kGlobal || args->kind != PickleKind::kTuple)
      fail(at, "REDUCE without a global and an argument tuple");
    if (callable->text == kOrderedDict) {
      if (!args->items.empty()) fail(at, "OrderedDict called with arguments");
      return make(PickleKind::kDict);
    }
    if (callable->text != kRebuildTensor)
      fail(at, "pickle calls '" + callable->text + "', which builds nothing a state dict holds");
    return rebuild_tensor(at, args->items);
  }

  static bool int_tuple(const PickleRef& v, std::vector<int64_t>* out) {
    if (v->kind != PickleKind::kTuple) return false;
    for (const PickleRef& x : v->items) {
      if (x->kind != PickleKind::kInt) return false;
      out->push_back(x->number);
    }
    return true;
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]).
  PickleRef rebuild_tensor(size_t at, const std::vector<PickleRef>& a) {
    PickleRef v = make(PickleKind::kTensor);
    TorchTensorRef& t = v->tensor;
    const bool ok = (a.size() == 6 || a.size() == 7) && a[0]->kind == PickleKind::kStorage &&
                    a[1]->kind == PickleKind::kInt && a[1]->number >= 0 && int_tuple(a[2], &t.shape) &&
                    int_tuple(a[3], &t.stride) && t.shape.size() == t.stride.size() &&
                    a[4]->kind == PickleKind::kBool && a[5]->kind == PickleKind::kDict &&
                    (a.size() == 6 || a[6]->kind == PickleKind::kNone || a[6]->kind == PickleKind::kDict);
    if (!ok) fail(at, "_rebuild_tensor_v2 arguments are not (storage, offset, size, stride, bool, hooks)");
    if (!a[5]->items.empty()) fail(at, "a tensor with backward hooks");
    t.storage = a[0]->storage;
    t.offset = static_cast<uint64_t>(a[1]->number);
    return v;
  }

  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0;
  const std::string& where_;
  std::vector<PickleRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, PickleRef> memo_;
};

}  // namespace

PickleRef read_pickle(const uint8_t* data, size_t size, size_t* consumed, const std::string& where) {
  return Unpickler(data, size, where).run(consumed);
}

}  // namespace models
