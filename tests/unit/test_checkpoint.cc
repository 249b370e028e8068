// Checkpoint format v1: round trip, and one test per validation error (each must name the file).
#include <fcntl.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/unique_fd.h"
#include "models/blob_crc32.h"
#include "models/checkpoint.h"
#include "models/model_error.h"
#include "models/transformer.h"
#include "pipeline/option_table.h"
#include "test_support.h"

namespace {

using nlohmann::json;

// Writes a random model, lets `edit` change its model.json (and blob), then loads it as a Transformer.
// Returns the error message ("" if it loaded).
template <class Edit>
std::string load_error(Edit&& edit) {
  test::TempDir dir;
  test::write_random_model(dir.path(), test::small_description(), 1);
  json meta = json::parse(test::read_file(dir.file("model.json")));
  std::string blob = test::read_file(dir.file("weights.bin"));
  edit(meta, blob);
  test::write_file(dir.file("model.json"), meta.dump());
  test::write_file(dir.file("weights.bin"), blob);
  try {
    models::Transformer model(dir.path());
  } catch (const models::ModelError& e) {
    const std::string msg = e.what();
    REQUIRE(msg.find(dir.path()) != std::string::npos);  // names the file
    REQUIRE(msg.find('\n') == std::string::npos);        // one line
    return msg;
  }
  return "";
}

json& tensor(json& meta, const std::string& name) {
  for (auto& t : meta["tensors"]) {
    if (t["name"] == name) return t;
  }
  throw std::runtime_error("no tensor " + name);
}

}  // namespace

TEST_CASE("checkpoint round trip keeps every tensor exactly (f32) and closely (f16)", "[checkpoint]") {
  const auto d = test::small_description();
  const auto tensors = test::random_tensors(d, 3);
  for (auto dtype : {models::DType::kF32, models::DType::kF16}) {
    test::TempDir dir;
    models::write_checkpoint(dir.path(), d, tensors, dtype);
    models::Checkpoint ckpt(dir.path());
    REQUIRE(ckpt.tensors().size() == tensors.size());
    REQUIRE(ckpt.description().config.d_model == d.config.d_model);
    REQUIRE(ckpt.description().decoding.max_length_a == d.decoding.max_length_a);
    for (const auto& t : tensors) {
      const float* got = ckpt.get(t.name, t.shape);
      for (size_t i = 0; i < t.values.size(); ++i) {
        if (dtype == models::DType::kF32) {
          REQUIRE(got[i] == t.values[i]);
        } else {
          REQUIRE(got[i] == Approx(t.values[i]).epsilon(1e-3).margin(1e-4));
        }
      }
    }
    for (const auto& e : ckpt.tensors()) REQUIRE(e.offset % 64 == 0);
  }
}

TEST_CASE("a valid checkpoint loads", "[checkpoint]") {
  REQUIRE(load_error([](json&, std::string&) {}) == "");
}

TEST_CASE("bad checkpoints give one-line errors naming the file and the problem", "[checkpoint]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(load_error([](json&, std::string& b) { b.resize(b.size() / 2); }), Contains("truncated"));
  CHECK_THAT(load_error([](json&, std::string& b) { b[100] ^= 1; }), Contains("checksum mismatch"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               m = json::array({1, 2});
             }),
             Contains("expected a JSON object"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"].erase("d_model"); }),
             Contains("config.d_model: missing"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["colour"] = "blue"; }),
             Contains("config.colour: unknown field"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["extra"] = 1; }), Contains("extra: unknown field"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["version"] = 2; }), Contains("not supported"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["activation"] = "tanh"; }),
             Contains("'tanh' is not supported"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["d_model"] = -16; }),
             Contains("out of range"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["n_heads"] = 3; }), Contains("divisible"));
  CHECK_THAT(load_error([](json& m, std::string&) { tensor(m, "encoder.embed_tokens")["dtype"] = "f64"; }),
             Contains("'f64' is not supported"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               tensor(m, "encoder.embed_tokens")["shape"] = {-40, 16};
             }),
             Contains("dimensions must be integers"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               tensor(m, "encoder.embed_tokens")["shape"] = {2000000000, 2000000000};
             }),
             Contains("does not match shape"));
  CHECK_THAT(load_error([](json& m, std::string&) { tensor(m, "encoder.embed_tokens")["offset"] = 1 << 30; }),
             Contains("outside the"));
  CHECK_THAT(load_error([](json& m, std::string&) { tensor(m, "encoder.embed_tokens")["offset"] = 32; }),
             Contains("64-byte aligned"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               tensor(m, "encoder.layers.0.fc1.bias")["offset"] = tensor(m, "encoder.embed_tokens")["offset"];
             }),
             Contains("overlap"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               auto& t = m["tensors"];
               for (size_t i = 0; i < t.size(); ++i) {
                 if (t[i]["name"] == "decoder.layers.1.fc2.weight") t.erase(i);
               }
             }),
             Contains("missing tensor 'decoder.layers.1.fc2.weight'"));
  CHECK_THAT(load_error([](json& m, std::string&) {
               auto& t = tensor(m, "encoder.layers.0.fc1.weight");
               t["shape"] = {16, 32};
             }),
             Contains("expected shape [32,16], got [16,32]"));
  CHECK_THAT(
      load_error([](json& m, std::string&) { tensor(m, "encoder.layers.0.fc1.bias")["name"] = "mystery"; }),
      Contains("missing tensor 'encoder.layers.0.fc1.bias'"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["tied_output"] = false; }),
             Contains("missing tensor 'output.weight'"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["config"]["encoder_layers"] = 1; }),
             Contains("unexpected tensor 'encoder.layers.1"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["weights"]["file"] = "../etc/passwd"; }),
             Contains("plain file name"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["weights"]["file"] = "nothere.bin"; }),
             Contains("cannot open"));
  CHECK_THAT(load_error([](json& m, std::string&) { m["tokens"]["eos"] = 99; }), Contains("tokens.eos"));
}

TEST_CASE("model.json that is not JSON, or absent, is reported", "[checkpoint]") {
  test::TempDir dir;
  REQUIRE_THROWS_WITH(models::Checkpoint(dir.path()), Catch::Matchers::Contains("model.json: cannot open"));
  test::write_file(dir.file("model.json"), "{\"format\": ");
  REQUIRE_THROWS_WITH(models::Checkpoint(dir.path()), Catch::Matchers::Contains("not valid JSON"));
  REQUIRE_THROWS_WITH(models::Checkpoint(dir.file("model.json")),
                      Catch::Matchers::Contains("not a directory"));
}

TEST_CASE("blob_crc32 is zlib's crc32 and sees a flipped byte anywhere", "[checkpoint]") {
  std::vector<uint8_t> blob((size_t{6} << 20) + 3);
  uint32_t state = 12345;
  for (uint8_t& b : blob) b = static_cast<uint8_t>((state = state * 1664525u + 1013904223u) >> 24);
  for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{1000}, size_t{5} << 20, blob.size()}) {
    CAPTURE(size);
    const uLong zlib_crc = crc32_z(crc32_z(0L, Z_NULL, 0), blob.data(), size);
    REQUIRE(models::blob_crc32(blob.data(), size) == static_cast<uint32_t>(zlib_crc));
  }
  const uint32_t whole = models::blob_crc32(blob.data(), blob.size());
  for (size_t at : {blob.size() / 4, blob.size() * 3 / 4}) {
    blob[at] ^= 0x10;
    CHECK(models::blob_crc32(blob.data(), blob.size()) != whole);
    blob[at] ^= 0x10;
  }
}

TEST_CASE("file_crc32 reads the file to the same CRC as blob_crc32", "[checkpoint]") {
  test::TempDir dir;
  std::string blob((size_t{1} << 20) + 5, '\0');  // several 128 KB reads and a short last one
  uint32_t state = 777;
  for (char& b : blob) b = static_cast<char>((state = state * 1664525u + 1013904223u) >> 24);
  test::write_file(dir.file("blob"), blob);
  core::UniqueFd fd(::open(dir.file("blob").c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd.valid());
  const auto* bytes = reinterpret_cast<const uint8_t*>(blob.data());
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, (size_t{128} << 10) + 1, blob.size()}) {
    CAPTURE(size);
    REQUIRE(models::file_crc32(fd.get(), "blob", size) == models::blob_crc32(bytes, size));
  }
  // Asked for more than the file holds: an error naming it, not a CRC of fewer bytes.
  REQUIRE_THROWS_WITH(models::file_crc32(fd.get(), dir.file("blob"), blob.size() + 1),
                      Catch::Matchers::Contains(dir.file("blob")));
}

TEST_CASE("a blob whose checksum does not match is refused at open", "[checkpoint]") {
  test::TempDir dir;
  test::write_random_model(dir.path(), test::small_description(), 1);
  std::string blob = test::read_file(dir.file("weights.bin"));
  blob[100] ^= 1;
  test::write_file(dir.file("weights.bin"), blob);
  REQUIRE_THROWS_WITH(models::Checkpoint(dir.path()), Catch::Matchers::Contains("checksum mismatch"));
  blob[100] ^= 1;
  test::write_file(dir.file("weights.bin"), blob);
  REQUIRE_NOTHROW(models::Checkpoint(dir.path()));
}

TEST_CASE("Checkpoint::read gives a tensor's stored bytes, and refuses to read past it", "[checkpoint]") {
  test::TempDir dir;
  test::write_random_model(dir.path(), test::small_description(), 2);
  const std::string blob = test::read_file(dir.file("weights.bin"));
  models::Checkpoint ckpt(dir.path());
  for (const auto& e : std::vector<models::TensorEntry>(ckpt.tensors())) {
    const auto& t = ckpt.entry(e.name, e.shape);
    std::string got(t.nbytes, '\0');
    ckpt.read(t, 0, t.nbytes, got.data());
    REQUIRE(got == blob.substr(t.offset, t.nbytes));
    if (t.nbytes > 3) {
      ckpt.read(t, 2, t.nbytes - 3, got.data());
      REQUIRE(got.substr(0, t.nbytes - 3) == blob.substr(t.offset + 2, t.nbytes - 3));
    }
    REQUIRE_THROWS_AS(ckpt.read(t, 1, t.nbytes, got.data()), models::ModelError);
  }
}

TEST_CASE("model.json's decoding defaults are held to the options table's ranges", "[checkpoint]") {
  using Catch::Matchers::Contains;
  // Every option whose default the model gives: a value just outside the table's range is refused at load
  // naming the field, and the range's ends load, so a model never carries a default the CLI refuses.
  int checked = 0;
  for (const pipeline::OptionSpec& spec : pipeline::option_table()) {
    if (spec.default_from != pipeline::DefaultFrom::kModel || spec.type == pipeline::OptionType::kFlag ||
        spec.type == pipeline::OptionType::kText)
      continue;
    const std::string field(spec.field);
    CAPTURE(field);
    const bool is_int = spec.type == pipeline::OptionType::kInt;
    const auto value = [&](double x) { return is_int ? json(static_cast<int64_t>(x)) : json(x); };
    const std::string at_hi =
        load_error([&](json& m, std::string&) { m["decoding"][field] = value(spec.hi); });
    if (at_hi.find("unknown field") != std::string::npos) continue;  // a run setting, not the model's
    if (field != "alignment_layer") CHECK(at_hi == "");  // which must also name one of the model's layers
    const double step = is_int ? 1 : spec.hi * 1e-3;
    CHECK_THAT(load_error([&](json& m, std::string&) { m["decoding"][field] = value(spec.hi + step); }),
               Contains("decoding." + field + ": ") && Contains("out of range"));
    CHECK_THAT(load_error([&](json& m, std::string&) { m["decoding"][field] = value(spec.lo - step); }),
               Contains("decoding." + field + ": ") && Contains("out of range"));
    ++checked;
  }
  CHECK(checked >= 7);
  CHECK_THAT(load_error([](json& m, std::string&) { m["decoding"]["max_length"] = 1; }),
             Contains("decoding.max_length"));
  // No room for a word and the end: a * 2 + b under 2.
  CHECK_THAT(load_error([](json& m, std::string&) {
               m["decoding"]["max_length_a"] = 0;
               m["decoding"]["max_length_b"] = 1;
             }),
             Contains("decoding.max_length_b"));
  // Whose beam search: one of three names.
  CHECK(load_error([](json& m, std::string&) { m["decoding"]["beam_rules"] = "ctranslate2"; }) == "");
  CHECK(load_error([](json& m, std::string&) { m["decoding"]["beam_rules"] = "hugging_face"; }) == "");
  CHECK(load_error([](json& m, std::string&) { m["decoding"]["beam_rules"] = "marian"; }) == "");
  CHECK_THAT(load_error([](json& m, std::string&) { m["decoding"]["beam_rules"] = "fairseq"; }),
             Contains("decoding.beam_rules"));
}
