#include "models/convert/torch_checkpoint.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/error.h"
#include "core/regular_file.h"
#include "models/checkpoint.h"
#include "models/convert/pickle_reader.h"
#include "models/convert/zip_member.h"
#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kMaxPickleBytes = uint64_t{64} << 20;   // OPUS-MT's state dict pickles are ~100 kB
constexpr uint64_t kMaxFileBytes = uint64_t{64} << 30;     // a legacy file is read whole
constexpr uint64_t kMaxStorageBytes = uint64_t{16} << 30;  // no converter input tensor is larger
constexpr int64_t kMaxDim = int64_t{1} << 40;
// The legacy format's first pickle: torch.serialization.MAGIC_NUMBER, 0x1950a86a20f9469cfc6c, as LONG1.
const std::string kLegacyMagic("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);
constexpr int64_t kLegacyProtocol = 1001;

struct StateEntry {
  std::string name;
  TorchTensorRef tensor;
};

// The storages the tensors refer to, by key, with the dtype and element count their pickle declares.
using StorageTable = std::map<std::string, TorchStorageRef>;

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& problem) const { throw ModelError(path_ + ": " + problem); }

  // The state dict's tensors in file order: a dict of string keys and tensors, nothing else.
  std::vector<StateEntry> state_entries(const PickleRef& root, StorageTable* storages) const {
    if (root->kind != PickleKind::kDict) fail("the pickle is not a state dict (a dict of tensors)");
    std::vector<StateEntry> out;
    for (size_t i = 0; i + 1 < root->items.size(); i += 2) {
      const PickleRef& key = root->items[i];
      const PickleRef& value = root->items[i + 1];
      if (key->kind != PickleKind::kString) fail("state dict key is not a string");
      if (value->kind != PickleKind::kTensor) fail("state dict entry '" + key->text + "' is not a tensor");
      const TorchStorageRef& s = value->tensor.storage;
      auto [it, added] = storages->emplace(s.key, s);
      if (!added && (it->second.dtype != s.dtype || it->second.numel != s.numel))
        fail("storage '" + s.key + "' is declared twice with different types or sizes");
      out.push_back({key->text, value->tensor});
    }
    return out;
  }

  // Checks a tensor against its storage, which begins at `storage_begin` in the data: contiguous, and
  // offset + product(shape) elements inside it.
  SourceTensor place(const StateEntry& e, uint64_t storage_begin) const {
    const TorchTensorRef& t = e.tensor;
    const std::string what = "tensor '" + e.name + "': ";
    const uint64_t item = static_cast<uint64_t>(source_itemsize(t.storage.dtype));
    uint64_t elements = 1;
    for (int64_t d : t.shape) {
      if (d < 0 || d > kMaxDim) fail(what + "shape " + shape_to_string(t.shape) + " is not a tensor shape");
      if (d != 0 && elements > (uint64_t{1} << 62) / static_cast<uint64_t>(d))
        fail(what + "shape " + shape_to_string(t.shape) + " is too large");
      elements *= static_cast<uint64_t>(d);
    }
    int64_t expected = 1;
    for (size_t i = t.shape.size(); i-- > 0;) {
      if (t.shape[i] != 1 && t.stride[i] != expected && elements != 0) {
        fail(what + "strides " + shape_to_string(t.stride) + " are not contiguous for shape " +
             shape_to_string(t.shape) +
             " (a transposed or strided view: save the tensor after .contiguous())");
      }
      expected *= t.shape[i];
    }
    const uint64_t numel = t.storage.numel;
    if (t.offset > numel || elements > numel - t.offset) {
      fail(what + "shape " + shape_to_string(t.shape) + " at offset " + std::to_string(t.offset) + " needs " +
           std::to_string(t.offset + elements) + " elements, storage '" + t.storage.key + "' holds " +
           std::to_string(numel));
    }
    SourceTensor out;
    out.name = e.name;
    out.dtype = t.storage.dtype;
    out.shape = t.shape;
    out.begin = storage_begin + t.offset * item;
    out.end = out.begin + elements * item;
    return out;
  }

  // The storage's byte count, refused above kMaxStorageBytes (before anything is read or allocated).
  uint64_t storage_bytes(const TorchStorageRef& s) const {
    const uint64_t item = static_cast<uint64_t>(source_itemsize(s.dtype));
    if (s.numel > kMaxStorageBytes / item) {
      fail("storage '" + s.key + "' declares " + std::to_string(s.numel) + " " + source_dtype_name(s.dtype) +
           " elements, more than " + std::to_string(kMaxStorageBytes >> 30) + " GiB");
    }
    return s.numel * item;
  }

  PickleRef pickle(const std::string& bytes, size_t* pos, const std::string& where) const {
    size_t consumed = 0;
    PickleRef v = read_pickle(reinterpret_cast<const uint8_t*>(bytes.data()) + *pos, bytes.size() - *pos,
                              &consumed, where);
    *pos += consumed;
    return v;
  }

 private:
  const std::string& path_;
};

// Finds the one ARCHIVE/data.pkl member; ARCHIVE is the file's stem as torch.save names it.
std::string archive_prefix(zip_t* z, const Reader& r) {
  std::string prefix;
  const zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    const std::string name = raw ? raw : "";
    const size_t slash = name.find('/');
    if (slash == std::string::npos || name.compare(slash, std::string::npos, "/data.pkl") != 0) continue;
    if (!prefix.empty()) r.fail("two state dict pickles (" + prefix + "/data.pkl and " + name + ")");
    prefix = name.substr(0, slash);
  }
  if (prefix.empty()) r.fail("zip archive without ARCHIVE/data.pkl: not a torch.save checkpoint");
  return prefix;
}

}  // namespace

bool looks_like_torch_checkpoint(const std::string& head) {
  return head.compare(0, 4, "PK\x03\x04") == 0 || (!head.empty() && static_cast<uint8_t>(head[0]) == 0x80);
}

TorchCheckpoint::TorchCheckpoint(const std::string& path) : TensorSource(path) {
  struct stat st;
  core::UniqueFd fd;
  try {
    fd = core::open_regular_file(path, "PyTorch checkpoint", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  char head[4] = {0, 0, 0, 0};
  const ssize_t got = ::pread(fd.get(), head, sizeof head, 0);
  if (got == 4 && std::string(head, 4) == "PK\x03\x04") {
    read_zip(fd.release(), static_cast<uint64_t>(st.st_size));
    return;
  }
  fd.reset();
  try {
    read_legacy(core::read_regular_file(path, "PyTorch checkpoint", kMaxFileBytes));
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
}

void TorchCheckpoint::read_zip(int fd, uint64_t file_bytes) {
  const Reader r(path());
  int code = 0;
  zip_t* z = zip_fdopen(fd, ZIP_RDONLY, &code);
  if (!z) {
    ::close(fd);
    fail("cannot open as a zip archive: " + zip_error_message(code));
  }
  try {
    const std::string prefix = archive_prefix(z, r);
    const zip_int64_t order = zip_name_locate(z, (prefix + "/byteorder").c_str(), ZIP_FL_ENC_RAW);
    if (order >= 0) {
      const std::string where = path() + ": " + prefix + "/byteorder";
      std::string byteorder;
      read_zip_member(z, static_cast<uint64_t>(order), file_bytes, 16, where, &byteorder);
      if (byteorder != "little")
        fail("byte order '" + byteorder + "': only little-endian checkpoints are read");
    }
    const std::string pkl_name = prefix + "/data.pkl";
    const std::string where = path() + ": " + pkl_name;
    const zip_int64_t pkl = zip_name_locate(z, pkl_name.c_str(), ZIP_FL_ENC_RAW);
    std::string bytes;
    read_zip_member(z, static_cast<uint64_t>(pkl), file_bytes, kMaxPickleBytes, where, &bytes);
    size_t pos = 0;
    const PickleRef root = r.pickle(bytes, &pos, where);
    if (pos != bytes.size()) fail(pkl_name + ": " + std::to_string(bytes.size() - pos) + " bytes after STOP");
    StorageTable storages;
    const std::vector<StateEntry> entries = r.state_entries(root, &storages);
    // Every storage is checked before any is read; the buffer is reserved up to the file's size, which
    // the stored members torch.save writes fill exactly.
    std::map<std::string, zip_uint64_t> members;
    uint64_t total = 0;
    for (const auto& [key, s] : storages) {
      const std::string member = prefix + "/data/" + key;
      const zip_int64_t index = zip_name_locate(z, member.c_str(), ZIP_FL_ENC_RAW);
      if (index < 0) fail("storage '" + key + "': no member " + member);
      const uint64_t need = r.storage_bytes(s);
      const uint64_t have = checked_member_size(z, static_cast<uint64_t>(index), file_bytes, kMaxStorageBytes,
                                                path() + ": " + member);
      if (have != need) {
        fail("storage '" + key + "': " + std::to_string(s.numel) + " " + source_dtype_name(s.dtype) +
             " elements need " + std::to_string(need) + " bytes, " + member + " holds " +
             std::to_string(have));
      }
      members[key] = static_cast<zip_uint64_t>(index);
      total += need;
    }
    data_.reserve(static_cast<size_t>(std::min(total, file_bytes)));
    std::map<std::string, uint64_t> begins;
    for (const auto& [key, index] : members) {
      begins[key] = data_.size();
      read_zip_member(z, index, file_bytes, kMaxStorageBytes, path() + ": " + prefix + "/data/" + key,
                      &data_);
    }
    std::vector<SourceTensor> tensors;
    for (const StateEntry& e : entries) tensors.push_back(r.place(e, begins.at(e.tensor.storage.key)));
    zip_discard(z);
    set_tensors(std::move(tensors), reinterpret_cast<const uint8_t*>(data_.data()));
  } catch (...) {
    zip_discard(z);
    throw;
  }
}

void TorchCheckpoint::read_legacy(std::string file) {
  const Reader r(path());
  if (!looks_like_torch_checkpoint(file))
    fail("not a PyTorch checkpoint (neither a zip archive nor a pickle)");
  size_t pos = 0;
  const PickleRef magic = r.pickle(file, &pos, path());
  if (magic->kind != PickleKind::kBigInt || magic->text != kLegacyMagic)
    fail("not a torch.save checkpoint (the legacy format's magic number is missing)");
  const PickleRef protocol = r.pickle(file, &pos, path());
  if (protocol->kind != PickleKind::kInt || protocol->number != kLegacyProtocol)
    fail("legacy protocol version is not " + std::to_string(kLegacyProtocol));
  const PickleRef info = r.pickle(file, &pos, path());
  bool little = false;
  for (size_t i = 0; info->kind == PickleKind::kDict && i + 1 < info->items.size(); i += 2) {
    if (info->items[i]->text == "little_endian") little = info->items[i + 1]->number == 1;
  }
  if (!little) fail("system info does not say little_endian: only little-endian checkpoints are read");
  StorageTable storages;
  const std::vector<StateEntry> entries = r.state_entries(r.pickle(file, &pos, path()), &storages);
  const PickleRef keys = r.pickle(file, &pos, path());
  if (keys->kind != PickleKind::kList) fail("the storage key list is not a list");
  std::map<std::string, uint64_t> begins;
  for (const PickleRef& key : keys->items) {
    auto it = storages.find(key->text);
    if (key->kind != PickleKind::kString || it == storages.end())
      fail("storage key list names a storage no tensor uses");
    if (begins.count(key->text)) fail("storage '" + key->text + "' is listed twice");
    const TorchStorageRef& s = it->second;
    if (file.size() - pos < 8) fail("truncated before storage '" + s.key + "'");
    uint64_t count = 0;
    for (int i = 7; i >= 0; --i) count = (count << 8) | static_cast<uint8_t>(file[pos + i]);
    pos += 8;
    if (count != s.numel)
      fail("storage '" + s.key + "': the pickle declares " + std::to_string(s.numel) +
           " elements, the file " + std::to_string(count));
    const uint64_t need = r.storage_bytes(s);
    if (need > file.size() - pos) {
      fail("storage '" + s.key + "': " + std::to_string(s.numel) + " " + source_dtype_name(s.dtype) +
           " elements need " + std::to_string(need) + " bytes, " + std::to_string(file.size() - pos) +
           " remain in the file (truncated?)");
    }
    begins[s.key] = pos;
    pos += static_cast<size_t>(need);
  }
  if (pos != file.size()) fail(std::to_string(file.size() - pos) + " bytes after the last storage");
  std::vector<SourceTensor> tensors;
  for (const StateEntry& e : entries) {
    auto it = begins.find(e.tensor.storage.key);
    if (it == begins.end())
      fail("tensor '" + e.name + "': storage '" + e.tensor.storage.key + "' is not in the file");
    tensors.push_back(r.place(e, it->second));
  }
  data_ = std::move(file);
  set_tensors(std::move(tensors), reinterpret_cast<const uint8_t*>(data_.data()));
}

}  // namespace models
