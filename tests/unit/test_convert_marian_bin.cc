// nmt convert marian-npz with Marian's binary model.bin: the same weights as the .npz it was written from,
// and hostile .bin files refused by name.
#include <sys/stat.h>

#include "convert_test_support.h"
#include "models/convert/marian_bin.h"
#include "models/convert/npz.h"

using namespace convert_test;

namespace {

constexpr uint64_t kFloat32 = 0x0404, kFloat16 = 0x0402, kInt8 = 0x0101, kUInt8 = 0x0201;

struct BinItem {
  std::string name;
  uint64_t type = kFloat32;
  std::vector<int32_t> shape;
  std::string data;
};

void put_word(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// The layout marian-conv writes (marian-dev src/common/binary.cpp), each item's data padded to 256 bytes.
std::string marian_bin(const std::vector<BinItem>& items) {
  std::string out;
  put_word(out, 1);
  put_word(out, items.size());
  std::vector<std::string> padded;
  for (const BinItem& item : items) {
    std::string data = item.data;
    data.resize((data.size() + 255) / 256 * 256, '\0');
    put_word(out, item.name.size() + 1);
    put_word(out, item.type);
    put_word(out, item.shape.size());
    put_word(out, data.size());
    padded.push_back(std::move(data));
  }
  for (const BinItem& item : items) out += item.name + '\0';
  for (const BinItem& item : items) {
    for (int32_t d : item.shape) {
      for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((static_cast<uint32_t>(d) >> (8 * i)) & 0xff));
    }
  }
  const size_t next = (out.size() + 8) / 256 * 256 + 256;
  put_word(out, next - out.size() - 8);
  out.resize(next, '\0');
  for (const std::string& data : padded) out += data;
  return out;
}

// The fixture release's arrays as Marian .bin items.
std::vector<BinItem> fixture_items() {
  std::vector<BinItem> items;
  for (const auto& [member, bytes] : read_npz_members(marian_dir() + "/model.npz")) {
    const models::NpyArray a = models::parse_npy(bytes, member);
    BinItem item;
    item.name = member.substr(0, member.size() - 4);  // without ".npy"
    item.type = a.dtype == models::NpyDType::kF32   ? kFloat32
                : a.dtype == models::NpyDType::kF16 ? kFloat16
                : a.dtype == models::NpyDType::kI8  ? kInt8
                                                    : kUInt8;
    for (int64_t d : a.shape) item.shape.push_back(static_cast<int32_t>(d));
    item.data = a.data;
    items.push_back(std::move(item));
  }
  return items;
}

// A copy of the fixture release whose model is `bin` in model.bin (decoder.yml names it).
std::string bin_release(const test::TempDir& tmp, const std::string& bin) {
  const std::string dir = tmp.file("marian");  // the fixture's name: no languages read from it
  copy_dir(marian_dir(), dir);
  fs::remove(dir + "/model.npz");
  test::write_file(dir + "/model.bin", bin);
  test::write_file(dir + "/decoder.yml",
                   replace(test::read_file(dir + "/decoder.yml"), "  - model.npz", "  - model.bin"));
  return dir;
}

std::string bin_refusal(const std::string& bin) {
  test::TempDir tmp;
  const std::string dir = bin_release(tmp, bin);
  try {
    models::convert_marian_npz(dir, {}, to(tmp.file("out")));
  } catch (const models::ModelError& e) {
    const std::string msg = e.what();
    INFO(msg);
    REQUIRE(msg.find('\n') == std::string::npos);
    REQUIRE(msg.find("model.bin") != std::string::npos);
    REQUIRE(!fs::exists(tmp.file("out") + "/model.json"));
    return msg;
  }
  return "";
}

}  // namespace

TEST_CASE("convert marian-npz reads Marian's binary model.bin as the .npz it came from",
          "[convert][marian-bin]") {
  test::TempDir tmp;
  const std::string from_npz = tmp.file("from-npz");
  models::convert_marian_npz(marian_dir(), {}, to(from_npz));
  const std::string dir = bin_release(tmp, marian_bin(fixture_items()));
  REQUIRE(models::looks_like_marian_bin(dir + "/model.bin"));
  const std::string from_bin = tmp.file("from-bin");
  models::convert_marian_npz(dir, {}, to(from_bin));
  CHECK(test::read_file(from_bin + "/weights.bin") == test::read_file(from_npz + "/weights.bin"));
  CHECK(json::parse(test::read_file(from_bin + "/model.json")) ==
        json::parse(test::read_file(from_npz + "/model.json")));

  // Without decoder.yml's `models`, the only Marian .bin is the model; a shortlist beside it is not one.
  test::write_file(dir + "/decoder.yml",
                   replace(test::read_file(dir + "/decoder.yml"), "models:\n  - model.bin\n", ""));
  test::write_file(dir + "/lex.50.50.ende.s2t.bin",
                   std::string("\x12\x34\x56\x78\x9a\xbc\xde\xf0", 8) + "xx");
  const std::string scanned = tmp.file("scanned");
  models::convert_marian_npz(dir, {}, to(scanned));
  CHECK(test::read_file(scanned + "/weights.bin") == test::read_file(from_npz + "/weights.bin"));
}

TEST_CASE("convert marian-npz refuses hostile Marian .bin files by name", "[convert][marian-bin][hostile]") {
  const std::vector<BinItem> items = fixture_items();
  const std::string good = marian_bin(items);
  auto with_word = [&](size_t at, uint64_t v) {
    std::string b = good;
    for (int i = 0; i < 8; ++i) b[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    return b;
  };
  CHECK(contains(bin_refusal(with_word(0, 2)), "version 1"));
  CHECK(contains(bin_refusal(with_word(8, uint64_t{1} << 40)), "items (at most"));
  CHECK(contains(bin_refusal(with_word(16, uint64_t{1} << 40)), "truncated"));  // item 0's name length
  CHECK(contains(bin_refusal(with_word(16 + 8, 0x4101)), "intgemm8"));          // item 0's type
  CHECK(contains(bin_refusal(with_word(16 + 16, 9)), "dimensions"));            // item 0's rank
  CHECK(contains(bin_refusal(with_word(16 + 24, 4)), "data bytes for"));        // item 0's data length
  CHECK(contains(bin_refusal(with_word(16 + 24, uint64_t{1} << 50)), "runs past the end"));

  std::vector<BinItem> twice = items;
  twice.push_back(items[0]);
  CHECK(contains(bin_refusal(marian_bin(twice)), "appears twice"));
  std::vector<BinItem> zero_dim = items;
  zero_dim[0].shape[0] = 0;
  CHECK(contains(bin_refusal(marian_bin(zero_dim)), "shape dimension 0"));
  std::vector<BinItem> nul_name = items;
  nul_name[0].name += std::string(1, '\0') + "x";
  CHECK(contains(bin_refusal(marian_bin(nul_name)), "NUL-terminated"));

  // A FIFO as the model is refused at once, and one beside a release does not stall the directory scan.
  CHECK(contains(
      marian_refusal([](const std::string& dir) {
        fs::remove(dir + "/model.npz");
        REQUIRE(::mkfifo((dir + "/model.bin").c_str(), 0600) == 0);  // no writer: an open would hang
        test::write_file(dir + "/decoder.yml",
                         replace(test::read_file(dir + "/decoder.yml"), "  - model.npz", "  - model.bin"));
      }),
      "not a regular file"));
  test::TempDir tmp;
  const std::string scanned = tmp.file("marian");
  copy_dir(marian_dir(), scanned);
  test::write_file(scanned + "/decoder.yml",
                   replace(test::read_file(scanned + "/decoder.yml"), "models:\n  - model.npz\n", ""));
  REQUIRE(::mkfifo((scanned + "/lex.s2t.bin").c_str(), 0600) == 0);
  CHECK(models::convert_marian_npz(scanned, {}, to(tmp.file("out"))).description.config.d_model == 32);

  // Every cut of the file is refused or (past the last needed byte) read: never a crash.
  for (size_t cut : {size_t{0}, size_t{7}, size_t{15}, size_t{100}, good.size() / 2, good.size() - 1}) {
    INFO("cut at " << cut);
    CHECK(!bin_refusal(good.substr(0, cut)).empty());
  }
}
