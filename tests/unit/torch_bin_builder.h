// pytorch_model.bin files built opcode by opcode, without torch: a state dict of one f32 tensor in the
// legacy or the zip serialization, with any storage size, offset, shape and stride, and pickles that
// call what a state dict never calls. The tests break these to check every refusal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zip_writer.h"

namespace torch_bin {

inline std::string u32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
inline std::string u64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
inline std::string unicode(const std::string& s) { return "X" + u32(static_cast<uint32_t>(s.size())) + s; }
inline std::string binint(int64_t v) {
  if (v >= 0 && v < (int64_t{1} << 31)) return "J" + u32(static_cast<uint32_t>(v));
  std::string out = "\x8a\x08" + u64(static_cast<uint64_t>(v));  // LONG1, 8 bytes
  return out;
}
inline std::string int_tuple(const std::vector<int64_t>& v) {
  std::string out = "(";
  for (int64_t x : v) out += binint(x);
  return out + "t";
}

struct Tensor {
  std::string name = "w";
  std::string key = "0";
  uint64_t storage_numel = 6;
  uint64_t offset = 0;
  std::vector<int64_t> shape = {2, 3};
  std::vector<int64_t> stride = {3, 1};
  std::string storage_type = "FloatStorage";
};

// The state dict pickle, as torch.save writes it (protocol 2); `legacy` adds the view element (None).
inline std::string state_dict_pickle(const Tensor& t, bool legacy) {
  std::string p =
      "\x80\x02"
      "ccollections\nOrderedDict\n)R(";
  p += unicode(t.name);
  p += "ctorch._utils\n_rebuild_tensor_v2\n((";
  p += unicode("storage") + "ctorch\n" + t.storage_type + "\n" + unicode(t.key) + unicode("cpu") +
       binint(static_cast<int64_t>(t.storage_numel)) + (legacy ? "N" : "") + "tQ";
  p += binint(static_cast<int64_t>(t.offset)) + int_tuple(t.shape) + int_tuple(t.stride);
  p += "\x89"
       "ccollections\nOrderedDict\n)Rt"
       "R"
       "u.";
  return p;
}

// Values 0, 1, 2, ... as f32 bytes.
inline std::string storage_bytes(uint64_t numel) {
  std::string out;
  for (uint64_t i = 0; i < numel; ++i) {
    const float f = static_cast<float>(i);
    out.append(reinterpret_cast<const char*>(&f), 4);
  }
  return out;
}

// Magic number, protocol version, system info, the state dict, the storage keys, then each storage.
inline std::string legacy_file(const std::string& state_dict, const std::string& key, uint64_t numel,
                               const std::string& data) {
  std::string f = std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
  f += std::string(
      "\x80\x02"
      "M\xe9\x03.",
      6);
  f += "\x80\x02}(" + unicode("protocol_version") + std::string("M\xe9\x03", 3) + unicode("little_endian") +
       "\x88" + unicode("type_sizes") + "}(" + unicode("short") + "K\x02" + unicode("int") + "K\x04" +
       unicode("long") +
       "K\x04"
       "uu.";
  f += state_dict;
  f += "\x80\x02](" + unicode(key) + "e.";
  return f + u64(numel) + data;
}

inline std::string legacy_file(const Tensor& t) {
  return legacy_file(state_dict_pickle(t, true), t.key, t.storage_numel, storage_bytes(t.storage_numel));
}

// The zip serialization of `t`; its storage member holds `data` (default: storage_numel values).
inline void write_zip_file(const std::string& path, const Tensor& t, const std::string* data = nullptr) {
  test::write_zip(path,
                  {{"archive/data.pkl", state_dict_pickle(t, false)},
                   {"archive/data/" + t.key, data ? *data : storage_bytes(t.storage_numel)},
                   {"archive/version", "3\n"}},
                  ZIP_CM_STORE);  // torch.save stores its members
}

// A pickle that calls MODULE.NAME("touch MARKER"): what unpickling an untrusted file can do.
inline std::string calling_pickle(const std::string& module, const std::string& name,
                                  const std::string& marker) {
  return "\x80\x02"
         "c" +
         module + "\n" + name + "\n" + unicode("touch '" + marker + "'") + "\x85R.";
}

}  // namespace torch_bin
