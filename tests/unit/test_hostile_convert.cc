// Hostile input to the converters and to translate's numeric options: non-finite weights are never
// written, planted symlinks never followed, a zip member's claimed size never allocated.
#include <sys/stat.h>
#include <zip.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/error.h"
#include "models/convert/checkpoint_writer.h"
#include "models/convert/npz.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string nmt() { return "'" + test::nmt_binary() + "'"; }

// A zip holding one small deflated member whose local and central headers claim `claimed` bytes.
std::string zip_claiming(const std::string& path, uint32_t claimed) {
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  REQUIRE(z);
  static const std::string member(4096, 'a');
  zip_source_t* src = zip_source_buffer(z, member.data(), member.size(), 0);
  REQUIRE(zip_file_add(z, "w.npy", src, ZIP_FL_OVERWRITE) >= 0);
  REQUIRE(zip_close(z) == 0);
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
    REQUIRE_THAT(r.err, Contains("finite"));
  }
}
