// A loaded model depends on its files no more: weights.bin overwritten or truncated while a model is in
// use changes nothing, on every weight path; and a blob larger than its tensors is refused before it is read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/packed_gemm.h"
#include "core/unique_fd.h"
#include "kernel_test_support.h"
#include "models/checkpoint.h"
#include "models/model_error.h"
#include "models/transformer.h"
#include "test_support.h"

namespace {

// Tensors of 2 MiB and more (an 8192 x 64 f32 embedding): the size a mapping once served in place.
models::ModelDescription description_with_large_tensors() {
  models::ModelDescription d = test::small_description();
  d.config.d_model = 64;
  d.config.n_heads = 4;
  d.config.ffn_dim = 128;
  d.config.src_vocab_size = d.config.tgt_vocab_size = 8192;
  return d;
}

std::vector<float> encode(const models::Transformer& model, int vocab) {
  std::mt19937 rng(7);
  std::vector<int32_t> ids;
  for (int i = 0; i < 9; ++i) ids.push_back(4 + static_cast<int32_t>(rng() % (vocab - 4)));
  ids.push_back(test::small_description().tokens.eos);
  return model.encode({ids}).memory;
}

// Writes zeros over the file in place: same inode, same size, as `dd conv=notrunc` would.
void overwrite_with_zeros(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  core::UniqueFd fd(::open(path.c_str(), O_WRONLY));
  REQUIRE(fd.get() >= 0);
  const std::vector<char> zeros(static_cast<size_t>(st.st_size), 0);
  REQUIRE(::pwrite(fd.get(), zeros.data(), zeros.size(), 0) == static_cast<ssize_t>(zeros.size()));
}

}  // namespace

TEST_CASE("weights.bin overwritten or truncated after loading changes nothing, on every weight path",
          "[checkpoint][hostile]") {
  test::PackedIsaGuard guard;
  const models::ModelDescription d = description_with_large_tensors();
  for (const core::PackedIsa isa : {core::PackedIsa::kNone, guard.saved}) {
    CAPTURE(static_cast<int>(isa));  // kNone: the f32 weights BLAS and the portable kernels use
    core::force_packed_isa(isa);
    test::TempDir dir;
    test::write_random_model(dir.path(), d, 5);
    models::Transformer model(dir.path());
    const std::vector<float> before = encode(model, d.config.src_vocab_size);
    overwrite_with_zeros(dir.file("weights.bin"));
    REQUIRE(encode(model, d.config.src_vocab_size) == before);
    // Through a mapping this would be SIGBUS at the first weight read.
    REQUIRE(::truncate(dir.file("weights.bin").c_str(), 0) == 0);
    REQUIRE(encode(model, d.config.src_vocab_size) == before);
  }
}

namespace {

// Loads a random model after `edit` changed its model.json and grew weights.bin to the size it declares
// (sparse, so a 64 GiB blob costs nothing); returns the error message.
template <class Edit>
std::string blob_size_error(Edit&& edit) {
  test::TempDir dir;
  test::write_random_model(dir.path(), test::small_description(), 1);
  nlohmann::json meta = nlohmann::json::parse(test::read_file(dir.file("model.json")));
  edit(meta);
  test::write_file(dir.file("model.json"), meta.dump());
  REQUIRE(::truncate(dir.file("weights.bin").c_str(), meta["weights"]["size"].get<off_t>()) == 0);
  try {
    models::Checkpoint checkpoint(dir.path());
  } catch (const models::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a blob larger than its tensors is refused before it is read", "[checkpoint][hostile]") {
  using Catch::Matchers::Contains;
  // Checksummed, a 64 GiB blob takes about a minute: refused at once, it cannot.
  REQUIRE_THAT(blob_size_error([](nlohmann::json& meta) { meta["weights"]["size"] = int64_t{64} << 30; }),
               Contains("model.json: weights.size is 68719476736 bytes, but the tensors end at byte "));
  REQUIRE_THAT(blob_size_error([](nlohmann::json& meta) {
                 meta["weights"]["size"] = meta["weights"]["size"].get<int64_t>() + 64;
               }),
               Contains("the blob holds the tensors and nothing else"));
}
