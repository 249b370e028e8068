// Hostile pytorch_model.bin files, built opcode by opcode (torch_bin_builder.h): calls to anything but
// the state dict's own globals are refused by name before anything runs, and no storage size, shape or
// element count is believed before it is checked against the bytes the file holds.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "convert_test_support.h"
#include "models/convert/pickle_reader.h"
#include "models/convert/torch_checkpoint.h"
#include "torch_bin_builder.h"

using namespace convert_test;

namespace {

std::string nmt() { return "'" + test::nmt_binary() + "'"; }

// The ModelError message reading `path` gives ("" when it reads).
std::string read_error(const std::string& path) {
  try {
    const models::TorchCheckpoint c(path);
    for (const auto& t : c.tensors()) c.read_f32(t.name);
  } catch (const models::ModelError& e) {
    return e.what();
  }
  return "";
}

// A string literal's bytes, NULs included.
template <size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string legacy_bin_error(const test::TempDir& tmp, const std::string& bytes) {
  return read_error(tmp.write("legacy.bin", bytes));
}

std::string zip_bin_error(const test::TempDir& tmp, const torch_bin::Tensor& t) {
  torch_bin::write_zip_file(tmp.file("zip.bin"), t);
  return read_error(tmp.file("zip.bin"));
}

}  // namespace

TEST_CASE("pytorch_model.bin: hand-built state dicts read in both serializations", "[convert][torch]") {
  test::TempDir tmp;
  torch_bin::Tensor t;
  t.storage_numel = 8;
  t.offset = 2;
  torch_bin::write_zip_file(tmp.file("zip.bin"), t);
  tmp.write("legacy.bin", torch_bin::legacy_file(t));
  for (const char* name : {"zip.bin", "legacy.bin"}) {
    CAPTURE(name);
    const models::TorchCheckpoint c(tmp.file(name));
    REQUIRE(c.tensors().size() == 1);
    REQUIRE(c.tensor("w").shape == std::vector<int64_t>{2, 3});
    REQUIRE(c.read_f32("w") == std::vector<float>{2, 3, 4, 5, 6, 7});
  }
}

TEST_CASE("pytorch_model.bin: a pickle calling os.system is refused by name and runs nothing",
          "[convert][torch][hostile]") {
  test::TempDir tmp;
  const std::string marker = tmp.file("executed");
  struct Case {
    std::string module, name, layout;
  };
  for (const Case& c :
       {Case{"posix", "system", "legacy"}, Case{"os", "system", "zip"}, Case{"builtins", "eval", "legacy"}}) {
    CAPTURE(c.module, c.layout);
    const std::string src = tmp.file("src-" + c.module);
    copy_dir(hf_dir(), src);
    fs::remove(src + "/model.safetensors");
    const std::string evil = torch_bin::calling_pickle(c.module, c.name, marker);
    if (c.layout == "zip") {
      test::write_zip(src + "/pytorch_model.bin", {{"archive/data.pkl", evil}}, ZIP_CM_STORE);
    } else {
      test::write_file(src + "/pytorch_model.bin", evil);
    }
    const test::RunResult r =
        test::run(nmt() + " convert --from hf-marian '" + src + "' -o '" + tmp.file("out-" + c.module) + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 2);
    REQUIRE(contains(r.err, src + "/pytorch_model.bin"));
    REQUIRE(contains(r.err, "refusing pickle global '" + c.module + "." + c.name + "'"));
    REQUIRE(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    REQUIRE(!fs::exists(marker));
    REQUIRE(!fs::exists(tmp.file("out-" + c.module) + "/model.json"));
  }
  // Inside the state dict, after valid entries, as well: refused at the global.
  torch_bin::Tensor t;
  std::string sd = torch_bin::state_dict_pickle(t, true);
  sd.insert(sd.size() - 2, torch_bin::unicode("x") + "cposix\nsystem\n" + torch_bin::unicode("id") + "\x85R");
  REQUIRE(contains(legacy_bin_error(tmp, torch_bin::legacy_file(sd, "0", 6, torch_bin::storage_bytes(6))),
                   "refusing pickle global 'posix.system'"));
}

TEST_CASE("pytorch_model.bin: storages shorter than their tensors, huge sizes, truncation",
          "[convert][torch][hostile]") {
  test::TempDir tmp;
  torch_bin::Tensor t;
  t.shape = {4, 4};
  t.stride = {4, 1};
  const std::string short_storage =
      "tensor 'w': shape [4,4] at offset 0 needs 16 elements, storage '0' holds 6";
  REQUIRE(contains(legacy_bin_error(tmp, torch_bin::legacy_file(t)), short_storage));
  REQUIRE(contains(zip_bin_error(tmp, t), short_storage));
  t = {};
  t.offset = 1;
  REQUIRE(contains(zip_bin_error(tmp, t), "at offset 1 needs 7 elements, storage '0' holds 6"));

  // A declared size far beyond the file: refused before anything is allocated.
  const std::string sd_huge = [] {
    torch_bin::Tensor h;
    h.storage_numel = uint64_t{1} << 31;
    h.shape = {1 << 16, 1 << 15};
    h.stride = {1 << 15, 1};
    return torch_bin::state_dict_pickle(h, true);
  }();
  REQUIRE(contains(legacy_bin_error(tmp, torch_bin::legacy_file(sd_huge, "0", uint64_t{1} << 31, "abcd")),
                   "storage '0': 2147483648 F32 elements need 8589934592 bytes, 4 remain in the file"));
  const std::string four_bytes = "abcd";
  t = {};
  t.storage_numel = uint64_t{1} << 31;
  torch_bin::write_zip_file(tmp.file("zip.bin"), t, &four_bytes);
  REQUIRE(contains(read_error(tmp.file("zip.bin")), "need 8589934592 bytes, archive/data/0 holds 4"));
  t.storage_numel = uint64_t{1} << 60;
  torch_bin::write_zip_file(tmp.file("zip.bin"), t, &four_bytes);
  REQUIRE(contains(read_error(tmp.file("zip.bin")),
                   "declares 1152921504606846976 F32 elements, more than 16 GiB"));
  // A string claiming 4 GB in a 40-byte pickle.
  REQUIRE(contains(legacy_bin_error(tmp, std::string("\x80\x02X\xff\xff\xff\xff"
                                                     "abc.",
                                                     10)),
                   "truncated pickle"));

  // Truncated anywhere: in a pickle, in the storage bytes, in the zip.
  const std::string full = torch_bin::legacy_file(torch_bin::Tensor{});
  REQUIRE(
      contains(legacy_bin_error(tmp, full.substr(0, full.size() - 5)), "remain in the file (truncated?)"));
  REQUIRE(contains(legacy_bin_error(tmp, full.substr(0, 200)), "truncated pickle"));
  REQUIRE(contains(legacy_bin_error(tmp, full + "x"), "1 bytes after the last storage"));
  torch_bin::write_zip_file(tmp.file("zip.bin"), torch_bin::Tensor{});
  const std::string zip = test::read_file(tmp.file("zip.bin"));
  REQUIRE(contains(read_error(tmp.write("cut.bin", zip.substr(0, zip.size() - 30))),
                   "cannot open as a zip archive"));
}

TEST_CASE("pytorch_model.bin: views, storage types and opcodes a state dict does not use",
          "[convert][torch][hostile]") {
  test::TempDir tmp;
  torch_bin::Tensor t;
  t.stride = {1, 2};  // a transposed view
  REQUIRE(contains(zip_bin_error(tmp, t), "tensor 'w': strides [1,2] are not contiguous for shape [2,3]"));
  t = {};
  t.storage_type = "LongStorage";
  REQUIRE(contains(zip_bin_error(tmp, t), "refusing pickle global 'torch.LongStorage'"));
  t = {};
  t.shape = {2, 3, 1};
  REQUIRE(contains(zip_bin_error(tmp, t), "_rebuild_tensor_v2 arguments are not"));
  // A storage type used as a callable, an unknown opcode, a container inside itself.
  REQUIRE(contains(legacy_bin_error(tmp,
                                    "\x80\x02"
                                    "ctorch\nFloatStorage\n)R."),
                   "pickle calls 'torch.FloatStorage'"));
  REQUIRE(contains(legacy_bin_error(tmp,
                                    "\x80\x02"
                                    "I1\n."),
                   "unsupported pickle opcode 0x49"));
  REQUIRE(contains(legacy_bin_error(tmp, bytes("\x80\x02]q\x00h\x00"
                                               "a.")),
                   "a container inside itself"));
  // A list filled after it is nested (the way to cycles and unbounded depth).
  REQUIRE(contains(legacy_bin_error(tmp, bytes("\x80\x02]q\x00]q\x01h\x00h\x01"
                                               "ah\x01]"
                                               "a.")),
                   "adding to a container that is already inside another"));
  std::string deep = "\x80\x02N";
  for (int i = 0; i < 40; ++i) deep += "\x85";
  REQUIRE(contains(legacy_bin_error(tmp, deep + "."), "pickle nests deeper than 32"));
  // The state dict of a big-endian machine.
  std::string big = torch_bin::legacy_file(torch_bin::Tensor{});
  big[big.find("little_endian") + 13] = '\x89';
  REQUIRE(contains(legacy_bin_error(tmp, big), "only little-endian checkpoints are read"));
}
