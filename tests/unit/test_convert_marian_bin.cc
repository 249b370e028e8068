// nmt convert marian-npz with Marian's binary model.bin: the same weights as the .npz it was written from,
// and hostile .bin files refused by name.
#include <sys/stat.h>

#include "convert_test_support.h"
#include "core/int8_gemm.h"
#include "models/checkpoint.h"
#include "models/convert/marian_bin.h"
#include "models/convert/npz.h"

using namespace convert_test;

namespace {

constexpr uint64_t kFloat32 = 0x0404, kFloat16 = 0x0402, kInt8 = 0x0101, kUInt8 = 0x0201, kIntgemm8 = 0x4101;

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

// What marian-conv --gemm-type intgemm8 quantizes: weights named *_W, *_W? and the embeddings.
bool intgemm_quantized(const std::string& name) {
  const size_t w = name.find("_W");
  return (w != std::string::npos && (w + 2 == name.size() || w + 3 == name.size())) ||
         name.find("Wemb") != std::string::npos;
}

// The float item as marian-conv writes it with --gemm-type intgemm8: int8 by 127 / max|w| (a weight
// transposed to [out, in]), the multiplier after the values. Returns the multiplier.
float to_intgemm8(BinItem& item) {
  models::NpyArray a;
  a.dtype = item.type == kFloat16 ? models::NpyDType::kF16 : models::NpyDType::kF32;
  for (int32_t d : item.shape) a.shape.push_back(d);
  a.data = item.data;
  std::vector<float> w = a.to_f32();
  const int rows = item.shape[0], cols = item.shape.size() > 1 ? item.shape[1] : 1;
  if (item.name.find("Wemb") == std::string::npos) {
    std::vector<float> t(w.size());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        t[static_cast<size_t>(c) * rows + r] = w[static_cast<size_t>(r) * cols + c];
    w = t;
  }
  float amax = 0;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  const float multiplier = 127.0f / amax;
  std::vector<int8_t> q(w.size());
  core::quantize_row_by(w.data(), static_cast<int>(w.size()), multiplier, q.data());
  item.type = kIntgemm8;
  item.data.assign(reinterpret_cast<const char*>(q.data()), q.size());
  item.data.append(reinterpret_cast<const char*>(&multiplier), sizeof multiplier);
  return multiplier;
}

std::vector<BinItem> intgemm8_items(std::map<std::string, float>* multipliers = nullptr) {
  std::vector<BinItem> items = fixture_items();
  for (BinItem& item : items) {
    if (!intgemm_quantized(item.name)) continue;
    const float m = to_intgemm8(item);
    if (multipliers) (*multipliers)[item.name] = m;
  }
  return items;
}

// The i8 tensor's values and its scales, as the checkpoint in `dir` stores them.
std::pair<std::vector<int8_t>, std::vector<float>> stored_int8(const std::string& dir,
                                                               const std::string& name) {
  models::Checkpoint ckpt(dir);
  const models::TensorEntry* t = ckpt.find(name);
  REQUIRE(t != nullptr);
  REQUIRE(t->dtype == models::DType::kI8);
  const float* scales = nullptr;
  ckpt.int8_entry(name, t->shape, &scales);
  std::vector<int8_t> q(static_cast<size_t>(t->nbytes));
  ckpt.read(*t, 0, t->nbytes, q.data());
  return {q, std::vector<float>(scales, scales + t->shape[0])};
}

// Whether the model in `dir` loads and translates a line, greedy and beam 4.
bool translates(const std::string& dir) {
  const pipeline::Translator translator(dir);
  pipeline::TranslateOptions o = translator.defaults();
  for (int beam : {1, 4}) {
    o.beam_size = beam;
    if (translator.translate({"A dog runs."}, o).size() != 1) return false;
  }
  return true;
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
  CHECK(contains(bin_refusal(with_word(16 + 8, 0x4102)), "intgemm16"));         // item 0's type
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

TEST_CASE("an intgemm8 model.bin keeps marian-conv's int8 values and Marian's int8 arithmetic",
          "[convert][marian-bin][intgemm]") {
  std::map<std::string, float> multipliers;
  test::TempDir tmp;
  const std::string dir = bin_release(tmp, marian_bin(intgemm8_items(&multipliers)));
  const std::string out = tmp.file("int8");
  const models::ConvertReport report = models::convert_marian_npz(dir, {}, to(out));
  CHECK(report.dtype == models::DType::kI8);
  const json model = json::parse(test::read_file(out + "/model.json"));
  CHECK(model["config"]["int8_scheme"] == "intgemm");
  CHECK(model["config"]["attention_rounding"] == "marian");

  // encoder_l1_ffn_W1 [32, 64] is stored [64, 32]: our layout, value for value; one scale, 1 / m.
  std::vector<BinItem> items = intgemm8_items();
  const auto w1 = std::find_if(items.begin(), items.end(),
                               [](const BinItem& i) { return i.name == "encoder_l1_ffn_W1"; });
  const auto [q, scales] = stored_int8(out, "encoder.layers.0.fc1.weight");
  CHECK(std::string(reinterpret_cast<const char*>(q.data()), q.size()) == w1->data.substr(0, 64 * 32));
  CHECK(scales == std::vector<float>(64, 1.0f / multipliers["encoder_l1_ffn_W1"]));
  {
    // gemm-precision float32 (absent): Marian's output product is a float one, so the tied table is f32.
    models::Checkpoint ckpt(out);
    CHECK(ckpt.find("encoder.embed_tokens")->dtype == models::DType::kF32);
    // The file's multiplier itself, which 1 / scale need not give back bit for bit.
    CHECK(*ckpt.get("encoder.layers.0.fc1.weight.weight_multiplier", {1}) ==
          multipliers["encoder_l1_ffn_W1"]);
  }
  CHECK(translates(out));

  // --dtype f32: an ordinary float model of the dequantized weights, q * (1 / m).
  models::ConvertOptions f32 = to(tmp.file("f32"));
  f32.dtype = models::ConvertDType::kF32;
  models::convert_marian_npz(dir, {}, f32);
  CHECK(!json::parse(test::read_file(tmp.file("f32") + "/model.json"))["config"].contains("int8_scheme"));
  models::Checkpoint ckpt(tmp.file("f32"));
  const float* fc1 = ckpt.get("encoder.layers.0.fc1.weight", {64, 32});
  CHECK(fc1[5] == static_cast<float>(q[5]) * (1.0f / multipliers["encoder_l1_ffn_W1"]));
}

TEST_CASE("gemm-precision int8shiftAlphaAll takes the model's alphas as fixed input multipliers",
          "[convert][marian-bin][intgemm]") {
  std::vector<BinItem> items = intgemm8_items();
  test::TempDir tmp;
  const std::string dir = bin_release(tmp, marian_bin(items));
  test::write_file(dir + "/decoder.yml",
                   test::read_file(dir + "/decoder.yml") + "gemm-precision: int8shiftAlphaAll\n");
  try {
    models::convert_marian_npz(dir, {}, to(tmp.file("none")));
    FAIL("converted without alphas");
  } catch (const models::ModelError& e) {
    CHECK(contains(e.what(), "_QuantMultA"));
  }
  const size_t weights = items.size();
  for (size_t i = 0; i < weights; ++i) {
    if (!intgemm_quantized(items[i].name)) continue;
    const float alpha = 20.0f + static_cast<float>(i);
    items.push_back({items[i].name + "_QuantMultA",
                     kFloat32,
                     {1},
                     std::string(reinterpret_cast<const char*>(&alpha), 4)});
  }
  test::write_file(dir + "/model.bin", marian_bin(items));
  const std::string out = tmp.file("alphas");
  models::convert_marian_npz(dir, {}, to(out));
  models::Checkpoint ckpt(out);
  // The tied output is int8 here, so the table is too, with the alpha of Wemb.
  CHECK(ckpt.find("encoder.embed_tokens")->dtype == models::DType::kI8);
  CHECK(ckpt.find("encoder.embed_tokens.input_multiplier") != nullptr);
  const auto fc1 = std::find_if(items.begin(), items.end(),
                                [](const BinItem& i) { return i.name == "encoder_l1_ffn_W1_QuantMultA"; });
  float want;
  std::memcpy(&want, fc1->data.data(), 4);
  CHECK(*ckpt.get("encoder.layers.0.fc1.weight.input_multiplier", {1}) == want);
  CHECK(translates(out));

  // An alpha the scheme does not read is refused at load, and so is a bad one.
  json model = json::parse(test::read_file(out + "/model.json"));
  model["config"].erase("int8_scheme");
  test::write_file(out + "/model.json", model.dump());
  try {
    const pipeline::Translator nmt_scheme(out);
    FAIL("loaded");
  } catch (const models::ModelError& e) {
    CHECK((contains(e.what(), "input_multiplier") || contains(e.what(), "weight_multiplier")));
  }

  // A weight multiplier that is not the inverse of its tensor's scales (another quantization's) is refused.
  model["config"]["int8_scheme"] = "intgemm-shifted";
  test::write_file(out + "/model.json", model.dump());
  CHECK(translates(out));
  {
    json bad = model;
    const std::string fc1 = "encoder.layers.0.fc1.weight.weight_multiplier",
                      fc2 = "encoder.layers.0.fc2.weight.weight_multiplier";
    for (auto& t : bad["tensors"]) {  // fc1's and fc2's multipliers swapped
      if (t["name"] == fc1) {
        t["name"] = fc2;
      } else if (t["name"] == fc2) {
        t["name"] = fc1;
      }
    }
    test::write_file(out + "/model.json", bad.dump());
    try {
      const pipeline::Translator swapped(out);
      FAIL("loaded");
    } catch (const models::ModelError& e) {
      CHECK(contains(e.what(), "weight_multiplier"));
      CHECK(contains(e.what(), "inverse of every scale"));
    }
  }
}

TEST_CASE("gemm-precision int8 on a float model quantizes each weight as Marian's int8 GEMM does",
          "[convert][marian-bin][intgemm]") {
  test::TempDir tmp;
  const std::string dir = tmp.file("marian");
  copy_dir(marian_dir(), dir);
  test::write_file(dir + "/decoder.yml",
                   test::read_file(dir + "/decoder.yml") + "gemm-precision: int8shift\n");
  const std::string out = tmp.file("out");
  models::convert_marian_npz(dir, {}, to(out));
  const auto [q, scales] = stored_int8(out, "decoder.layers.1.cross_attn.q_proj.weight");
  CHECK(scales == std::vector<float>(32, scales[0]));  // one multiplier for the matrix
  int extreme = 0;
  for (int8_t v : q) extreme += std::abs(v) == 127;
  CHECK(extreme >= 1);
  // Marian looks the float table up and multiplies by an int8 copy of it.
  models::Checkpoint ckpt(out);
  CHECK(ckpt.find("encoder.embed_tokens")->dtype == models::DType::kF32);
  CHECK(ckpt.find("output.weight")->dtype == models::DType::kI8);
  CHECK(json::parse(test::read_file(out + "/model.json"))["config"]["tied_output"] == false);
  CHECK(translates(out));

  test::write_file(dir + "/decoder.yml",
                   test::read_file(marian_dir() + "/decoder.yml") + "gemm-precision: int16\n");
  try {
    models::convert_marian_npz(dir, {}, to(tmp.file("int16")));
    FAIL("converted int16");
  } catch (const models::ModelError& e) {
    CHECK(contains(e.what(), "gemm-precision"));
  }
}

TEST_CASE("hostile intgemm8 items are refused by name", "[convert][marian-bin][intgemm][hostile]") {
  const std::vector<BinItem> items = intgemm8_items();
  const auto at = [&](const std::string& name) {
    return static_cast<size_t>(
        std::find_if(items.begin(), items.end(), [&](const BinItem& i) { return i.name == name; }) -
        items.begin());
  };
  const size_t w1 = at("encoder_l1_ffn_W1");
  std::vector<BinItem> no_multiplier = items;
  no_multiplier[w1].data.resize(64 * 32);  // a multiple of 256: no padding holds the multiplier's bytes
  CHECK(contains(bin_refusal(marian_bin(no_multiplier)), "data bytes for"));
  for (const float bad : {0.0f, -1.0f, std::nanf("")}) {
    std::vector<BinItem> edited = items;
    std::memcpy(&edited[w1].data[64 * 32], &bad, 4);
    CHECK(contains(bin_refusal(marian_bin(edited)), "quantization multiplier"));
  }
  std::vector<BinItem> minus128 = items;
  minus128[w1].data[3] = static_cast<char>(-128);
  CHECK(contains(bin_refusal(marian_bin(minus128)), "-128"));
}
