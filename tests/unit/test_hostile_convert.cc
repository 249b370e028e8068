// Hostile input to the converters and to translate's numeric options: non-finite weights are never
// written, planted symlinks never followed, a zip member's claimed size never allocated.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/error.h"
#include "models/convert/checkpoint_writer.h"
#include "models/convert/npz.h"
#include "test_support.h"
#include "zip_writer.h"

namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string nmt() { return "'" + test::nmt_binary() + "'"; }

// A zip holding one small deflated member whose local and central headers claim `claimed` bytes.
std::string zip_claiming(const std::string& path, uint32_t claimed) {
  test::write_zip(path, {{"w.npy", std::string(4096, 'a')}});
  std::string bytes = test::read_file(path);
  for (const auto& [signature, at] : {std::pair<std::string, size_t>{"PK\x03\x04", 22}, {"PK\x01\x02", 24}}) {
    const size_t header = bytes.find(signature);
    REQUIRE(header != std::string::npos);
    std::memcpy(&bytes[header + at], &claimed, 4);  // little-endian on x86
  }
  test::write_file(path, bytes);
  return path;
}

}  // namespace

TEST_CASE("the checkpoint writer refuses NaN and infinite values, and values f16 cannot hold",
          "[convert][hostile]") {
  const models::ModelDescription d = test::small_description();
  struct Case {
    float value;
    models::DType dtype;
  };
  for (const Case& c :
       {Case{std::numeric_limits<float>::quiet_NaN(), models::DType::kF32},
        Case{-std::numeric_limits<float>::infinity(), models::DType::kF32},
        Case{std::numeric_limits<float>::infinity(), models::DType::kF16}, Case{1e5f, models::DType::kF16}}) {
    CAPTURE(c.value);
    test::TempDir dir;
    auto tensors = test::random_tensors(d, 4);
    tensors[3].values[1] = c.value;
    REQUIRE_THROWS_WITH(models::write_checkpoint(dir.path(), d, tensors, c.dtype),
                        Contains("tensor '" + tensors[3].name + "'") && Contains("is not finite"));
    REQUIRE(!fs::exists(dir.file("model.json")));
  }
  test::TempDir dir;
  auto tensors = test::random_tensors(d, 4);
  tensors[3].values[1] = 65504.0f;  // f16's largest finite value
  REQUIRE_NOTHROW(models::write_checkpoint(dir.path(), d, tensors, models::DType::kF16));
}

TEST_CASE("convert --force never writes through a symlink planted in the output directory",
          "[convert][hostile]") {
  test::TempDir dir;
  const std::string out = dir.file("out");
  fs::create_directory(out);
  const std::string victim = dir.file("victim");
  test::write_file(victim, "precious\n");
  for (const char* name : {"model.json.tmp", "weights.bin.tmp", "vocab.json.tmp", "model.json.XXXXXX"})
    fs::create_symlink(victim, out + "/" + name);
  const auto r = test::run(nmt() + " convert --from hf-marian '" + test::fixtures_dir() + "/opus/hf' -o '" +
                           out + "' --force");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(test::read_file(victim) == "precious\n");
  REQUIRE(fs::is_regular_file(fs::symlink_status(out + "/model.json")));
  for (const auto& entry : fs::directory_iterator(out)) {  // no temporary left behind
    const std::string name = entry.path().filename();
    CHECK((fs::is_symlink(entry.symlink_status()) || name.find(".tmp") == std::string::npos));
  }
}

TEST_CASE("an .npz member claiming more than the archive can hold is refused before allocation",
          "[convert][hostile]") {
  test::TempDir dir;
  const std::string path = zip_claiming(dir.file("model.npz"), 0xFFFFFFF0u);
  models::NpzFile npz(path);
  REQUIRE_THROWS_WITH(npz.read("w"), Contains("w.npy: declares 4294967280 bytes, more than the"));

  const auto fifo = dir.file("fifo.npz");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(models::NpzFile(fifo), Contains("fifo.npz: Marian model (.npz) is a FIFO"));
}

TEST_CASE("non-finite --length-penalty and --max-length-a are usage errors", "[cli][hostile]") {
  for (const std::string option : {"--length-penalty -inf", "--length-penalty inf", "--length-penalty nan",
                                   "--max-length-a nan", "--max-length-a inf"}) {
    const auto r =
        test::run(nmt() + " translate -m '" + test::fixtures_dir() + "/opus/model' " + option, "hi\n");
    INFO(option << ": " << r.err);
    REQUIRE(r.exit_code == 64);
    REQUIRE_THAT(r.err, Contains(": must be a number in "));  // the range help shows
  }
}

namespace {

std::string marian_copy(const test::TempDir& tmp) {
  const std::string src = tmp.file("release");
  fs::copy(test::fixtures_dir() + "/opus/marian", src);
  return src;
}

std::string hf_copy(const test::TempDir& tmp) {
  const std::string src = tmp.file("hf");
  fs::copy(test::fixtures_dir() + "/opus/hf", src);
  return src;
}

void set_decoder_yml(const std::string& src, const std::string& models, const std::string& vocab) {
  test::write_file(src + "/decoder.yml",
                   "models:\n  - " + models + "\nvocabs:\n  - " + vocab + "\n  - " + vocab + "\n");
}

std::string convert_error(const std::string& command) {
  const auto r = test::run(command + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);  // one line
  return r.out;
}

}  // namespace

TEST_CASE("decoder.yml naming files outside the release directory is refused", "[convert][hostile]") {
  test::TempDir tmp;
  const std::string src = marian_copy(tmp);
  const std::string convert = nmt() + " convert --from marian-npz '" + src + "' -o '" + tmp.file("out") + "'";
  fs::copy_file(src + "/vocab.yml", tmp.file("outside.yml"));
  fs::copy_file(src + "/model.npz", tmp.file("outside.npz"));
  set_decoder_yml(src, "model.npz", "../outside.yml");
  CHECK_THAT(convert_error(convert), Contains("decoder.yml: vocabs: '../outside.yml' climbs out with '..'"));
  set_decoder_yml(src, "model.npz", tmp.file("outside.yml"));
  CHECK_THAT(convert_error(convert), Contains("is an absolute path"));
  set_decoder_yml(src, "../outside.npz", "vocab.yml");
  CHECK_THAT(convert_error(convert), Contains("decoder.yml: models: '../outside.npz' climbs out"));
  fs::create_symlink(tmp.file("outside.yml"), src + "/linked.yml");
  set_decoder_yml(src, "model.npz", "linked.yml");
  CHECK_THAT(convert_error(convert), Contains("'linked.yml' leads outside the release directory"));
  fs::create_directory(src + "/sub");
  fs::create_directory_symlink(tmp.path(), src + "/sub/up");
  set_decoder_yml(src, "sub/up/outside.npz", "vocab.yml");
  CHECK_THAT(convert_error(convert), Contains("leads outside the release directory"));
  // A default name planted as a symlink out of the release is refused too.
  set_decoder_yml(src, "model.npz", "vocab.yml");
  fs::rename(src + "/source.spm", tmp.file("source.spm"));
  fs::create_symlink(tmp.file("source.spm"), src + "/source.spm");
  CHECK_THAT(convert_error(convert), Contains("source.spm: 'source.spm' leads outside"));
  // A symlink that stays inside is followed.
  fs::remove(src + "/source.spm");
  fs::rename(tmp.file("source.spm"), src + "/sub/source.spm");
  fs::create_symlink("sub/source.spm", src + "/source.spm");
  fs::create_symlink("vocab.yml", src + "/same.yml");
  set_decoder_yml(src, "model.npz", "same.yml");
  const auto ok = test::run(convert);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("a Marian vocabulary smaller than the embeddings is refused", "[convert][hostile]") {
  test::TempDir tmp;
  const std::string src = marian_copy(tmp);
  test::write_file(src + "/vocab.yml", "</s>: 0\n<unk>: 1\n");
  const std::string out =
      convert_error(nmt() + " convert --from marian-npz '" + src + "' -o '" + tmp.file("out") + "'");
  CHECK_THAT(out, Contains("vocab.yml: 2 ids, but the model's embeddings have 337 rows"));
  CHECK_FALSE(fs::exists(tmp.file("out/model.json")));
}

TEST_CASE("converter inputs that are FIFOs, devices or oversized are refused, never read",
          "[convert][hostile]") {
  test::TempDir tmp;
  const std::string hf = hf_copy(tmp);
  const std::string convert = nmt() + " convert --from hf-marian '" + hf + "' -o '" + tmp.file("out") + "'";
  const auto replace_with = [&](const std::string& path, const std::string& kind) {
    fs::remove(path);
    if (kind == "fifo") REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    if (kind == "device") REQUIRE(::mknod(path.c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0);  // a zero
    if (kind == "big") {
      test::write_file(path, "{}");
      fs::resize_file(path, (64u << 20) + 1);
    }
  };
  for (const char* name : {"config.json", "model.safetensors", "vocab.json", "source.spm"}) {
    for (const char* kind : {"fifo", "device", "big"}) {
      if (std::string(name) == "model.safetensors" && std::string(kind) == "big")
        continue;  // mapped, any size
      CAPTURE(name, kind);
      fs::remove_all(hf);
      hf_copy(tmp);
      replace_with(hf + "/" + name, kind);
      const std::string out = convert_error("timeout 20 " + convert);
      CHECK_THAT(out, Contains(hf + "/" + name));
      CHECK_THAT(out, Contains(std::string(kind) == "fifo"     ? "is a FIFO, not a regular file"
                               : std::string(kind) == "device" ? "is a character device, not a regular file"
                                                               : "larger than the 64 MiB limit"));
    }
  }
  const std::string release = marian_copy(tmp);
  replace_with(release + "/decoder.yml", "fifo");
  CHECK_THAT(convert_error("timeout 20 " + nmt() + " convert --from marian-npz '" + release + "' -o '" +
                           tmp.file("out2") + "'"),
             Contains("decoder.yml: decoder configuration is a FIFO"));
}
