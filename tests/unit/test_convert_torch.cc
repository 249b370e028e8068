// nmt convert from pytorch_model.bin (both torch.save serializations, written by torch at test time) and
// from the Hugging Face cache by repository id. The tests that need torch are tagged [torch] only, not
// [convert]: parity_on_blas_path runs [convert] and fails on any skip, and they skip without torch.
#include <unistd.h>

#include "convert_test_support.h"
#include "models/convert/hf_cache.h"
#include "models/convert/torch_checkpoint.h"

using namespace convert_test;

namespace {

std::string nmt() { return "'" + test::nmt_binary() + "'"; }
std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Runs tests/tools/make_torch_bins.py; false (and the reason) when this machine's python has no torch.
bool make_torch_bins(const std::string& args, std::string* why_not) {
  const test::RunResult probe = test::run("/usr/bin/python3 -c 'import torch' 2>&1");
  if (probe.exit_code != 0) {
    *why_not = "/usr/bin/python3 cannot import torch: these tests need the Debian package python3-torch";
    return false;
  }
  const test::RunResult r = test::run(
      "/usr/bin/python3 " + quoted(test::fixtures_dir() + "/../tools/make_torch_bins.py") + " " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return true;
}

// An OPUS-MT directory whose weights are `weights` under the name pytorch_model.bin.
std::string hf_dir_with_bin(const test::TempDir& tmp, const std::string& name, const std::string& weights) {
  const std::string dir = tmp.file(name);
  copy_dir(hf_dir(), dir);
  fs::remove(dir + "/model.safetensors");
  fs::copy_file(weights, dir + "/pytorch_model.bin");
  return dir;
}

std::string translate(const std::string& model, const std::string& input) {
  const test::RunResult r = test::run(nmt() + " translate -q -b 2 -m " + quoted(model), input);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("convert: pytorch_model.bin in both serializations gives the safetensors model's bytes",
          "[torch]") {
  test::TempDir tmp;
  std::string why_not;
  if (!make_torch_bins("marian " + quoted(hf_dir() + "/model.safetensors") + " " +
                           quoted(tmp.file("zip.bin")) + " " + quoted(tmp.file("legacy.bin")),
                       &why_not))
    NMT_SKIP_TEST(why_not);
  REQUIRE(test::read_file(tmp.file("zip.bin")).compare(0, 4, "PK\x03\x04") == 0);
  REQUIRE(static_cast<uint8_t>(test::read_file(tmp.file("legacy.bin"))[0]) == 0x80);
  const std::string from_zip = hf_dir_with_bin(tmp, "zip", tmp.file("zip.bin"));
  const std::string from_legacy = hf_dir_with_bin(tmp, "legacy", tmp.file("legacy.bin"));
  // The tied copies share one storage; final_logits_bias is a view at an offset.
  const models::TorchCheckpoint legacy(from_legacy + "/pytorch_model.bin");
  REQUIRE(legacy.has("lm_head.weight"));
  REQUIRE(legacy.tensor("lm_head.weight").begin == legacy.tensor("model.shared.weight").begin);

  models::convert_hf_marian(hf_dir(), to(tmp.file("m_safetensors")));
  models::convert_hf_marian(from_legacy, to(tmp.file("m_legacy")));
  const test::RunResult cli =
      test::run(nmt() + " convert --from hf-marian " + quoted(from_zip) + " -o " + quoted(tmp.file("m_zip")));
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  const std::string weights = test::read_file(tmp.file("m_safetensors/weights.bin"));
  REQUIRE(test::read_file(tmp.file("m_legacy/weights.bin")) == weights);
  REQUIRE(test::read_file(tmp.file("m_zip/weights.bin")) == weights);
  REQUIRE(test::run("cmp " + quoted(tmp.file("m_zip/weights.bin")) + " " +
                    quoted(tmp.file("m_legacy/weights.bin")))
              .exit_code == 0);

  const std::string input = "A dog runs.\nTwo men are playing football in the park.\n";
  const std::string expected = translate(tmp.file("m_safetensors"), input);
  REQUIRE(!expected.empty());
  REQUIRE(translate(tmp.file("m_legacy"), input) == expected);
  REQUIRE(translate(tmp.file("m_zip"), input) == expected);

  // Both present: model.safetensors is read. A broken pytorch_model.bin beside it is never opened.
  copy_dir(hf_dir(), tmp.file("both"));
  test::write_file(tmp.file("both/pytorch_model.bin"),
                   "\x80\x02"
                   "cposix\nsystem\n.");
  models::convert_hf_marian(tmp.file("both"), to(tmp.file("m_both")));
  REQUIRE(test::read_file(tmp.file("m_both/weights.bin")) == weights);
}

TEST_CASE("pytorch_model.bin: F16 and BF16 storages widen exactly, views at an offset", "[torch]") {
  test::TempDir tmp;
  std::string why_not;
  if (!make_torch_bins("dtypes " + quoted(tmp.file("zip.bin")) + " " + quoted(tmp.file("legacy.bin")),
                       &why_not))
    NMT_SKIP_TEST(why_not);
  for (const char* name : {"zip.bin", "legacy.bin"}) {
    CAPTURE(name);
    const models::TorchCheckpoint c(tmp.file(name));
    REQUIRE(c.tensors().size() == 3);
    REQUIRE(c.tensor("half").dtype == models::SourceDType::kF16);
    REQUIRE(c.read_f32("half") == std::vector<float>{1.0f, -2.5f, 65504.0f});
    REQUIRE(c.tensor("brain").dtype == models::SourceDType::kBF16);
    REQUIRE(c.read_f32("brain") == std::vector<float>{1.0f, -2.5f});
    REQUIRE(c.tensor("float").shape == std::vector<int64_t>{2, 2});
    REQUIRE(c.read_f32("float") == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});
  }
}

// ---- the Hugging Face cache ------------------------------------------------------------------------

namespace {

// CACHE/models--Helsinki-NLP--opus-mt-test laid out as huggingface-cli leaves it: refs/main holds the
// commit, snapshots/COMMIT/FILE are symlinks into ../../blobs/.
void fake_cache(const std::string& cache, const std::string& ref, const std::string& commit) {
  const std::string repo = cache + "/models--Helsinki-NLP--opus-mt-test";
  fs::create_directories(repo + "/blobs");
  fs::create_directories(repo + "/refs");
  fs::create_directories(repo + "/snapshots/" + commit);
  test::write_file(repo + "/refs/" + ref, commit);
  int blob = 0;
  for (const auto& e : fs::directory_iterator(hf_dir())) {
    const std::string hash = "blob" + std::to_string(blob++);
    fs::copy_file(e.path(), repo + "/blobs/" + hash);
    fs::create_symlink("../../blobs/" + hash,
                       repo + "/snapshots/" + commit + "/" + e.path().filename().string());
  }
}

}  // namespace

TEST_CASE("convert: ORG/NAME finds the download in the Hugging Face cache", "[convert][hf_cache]") {
  test::TempDir tmp;
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  fake_cache(tmp.file("hub"), "main", commit);
  fake_cache(tmp.file("home/hub"), "v2", commit);
  models::convert_hf_marian(hf_dir(), to(tmp.file("expected")));
  const std::string weights = test::read_file(tmp.file("expected/weights.bin"));
  const std::string env = "env -u HF_HUB_CACHE -u HF_HOME HOME=" + quoted(tmp.file("nohome")) + " ";
  struct Case {
    std::string environment, spec, out;
  };
  for (const Case& c :
       {Case{"HF_HUB_CACHE=" + quoted(tmp.file("hub")), "Helsinki-NLP/opus-mt-test", "a"},
        Case{"HF_HOME=" + quoted(tmp.file("home")), "Helsinki-NLP/opus-mt-test@v2", "b"},
        Case{"HF_HUB_CACHE=" + quoted(tmp.file("hub")), "Helsinki-NLP/opus-mt-test@" + commit, "c"}}) {
    CAPTURE(c.spec);
    const test::RunResult r = test::run(env + c.environment + " " + nmt() + " convert --from hf-marian " +
                                        c.spec + " -o " + quoted(tmp.file(c.out)));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(test::read_file(tmp.file(c.out + "/weights.bin")) == weights);
  }
  // ~/.cache/huggingface/hub when neither variable is set.
  fake_cache(tmp.file("nohome/.cache/huggingface/hub"), "main", commit);
  REQUIRE(test::run(env + nmt() + " convert --from hf-marian Helsinki-NLP/opus-mt-test -o " +
                    quoted(tmp.file("d")))
              .exit_code == 0);
  REQUIRE(test::read_file(tmp.file("d/weights.bin")) == weights);

  // Absent: one line saying where it looked, exit 2.
  const test::RunResult missing =
      test::run("HF_HUB_CACHE=" + quoted(tmp.file("hub")) + " " + nmt() +
                " convert --from hf-marian Helsinki-NLP/opus-mt-xx -o " + quoted(tmp.file("e")));
  REQUIRE(missing.exit_code == 2);
  REQUIRE(
      contains(missing.err, "Helsinki-NLP/opus-mt-xx: not a directory, and not in the Hugging Face cache"));
  REQUIRE(contains(missing.err, tmp.file("hub") + "/models--Helsinki-NLP--opus-mt-xx/refs/main"));
  REQUIRE(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
  const test::RunResult no_rev =
      test::run("HF_HUB_CACHE=" + quoted(tmp.file("hub")) + " " + nmt() +
                " convert --from hf-marian Helsinki-NLP/opus-mt-test@nope -o " + quoted(tmp.file("f")));
  REQUIRE(no_rev.exit_code == 2);
  REQUIRE(contains(no_rev.err, "refs/nope"));
}

TEST_CASE("Hugging Face repository ids", "[convert][hf_cache]") {
  REQUIRE(models::is_hf_repo_id("Helsinki-NLP/opus-mt-en-de"));
  REQUIRE(models::is_hf_repo_id("Helsinki-NLP/opus-mt-en-de@main"));
  for (const char* bad :
       {"opus-mt-en-de", "a/b/c", "../x", "a/..", "a/b@../c", "a/b@", "/abs/path", "a b/c"}) {
    CAPTURE(bad);
    REQUIRE(!models::is_hf_repo_id(bad));
  }
}
