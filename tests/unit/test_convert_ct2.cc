// `nmt convert --from ct2`: the CTranslate2 fixtures (tests/tools/make_ct2_fixtures.py: Marian-style
// post-norm, pre-norm with final norms, float32/float16/int8 weights) translate as CTranslate2 did
// (golden.json, recorded from CTranslate2 4.8.1 with compute_type float32), and hostile model.bin files
// are refused with one line.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli/commands/convert_command.h"
#include "models/convert/argos_package.h"
#include "models/convert/convert_ct2.h"
#include "models/convert/ct2_model_bin.h"
#include "models/model_error.h"
#include "pipeline/translator.h"
#include "test_support.h"
#include "zip_writer.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string ct2_fixture(const std::string& name) { return test::fixtures_dir() + "/ct2/" + name; }

models::ConvertOptions to(const std::string& dir, models::ConvertDType dtype = models::ConvertDType::kKeep) {
  models::ConvertOptions o;
  o.output_dir = dir;
  o.dtype = dtype;
  return o;
}

// The ids of `pieces` in the converted model's source vocabulary (the fixtures share one).
std::vector<int32_t> source_ids(const std::string& model_dir, const std::vector<std::string>& pieces) {
  const json meta = json::parse(test::read_file(model_dir + "/model.json"));
  const json vocab =
      json::parse(test::read_file(model_dir + "/" + meta["tokenizer"]["source_vocab"].get<std::string>()));
  std::vector<int32_t> ids;
  // A piece outside the vocabulary is <unk>, as CTranslate2 maps it.
  const int32_t unk = meta["tokens"]["unk"];
  for (const std::string& p : pieces) ids.push_back(vocab.contains(p) ? vocab[p].get<int32_t>() : unk);
  return ids;
}

// The model's outputs as pieces (the EOS dropped), as CTranslate2 returns them.
std::vector<std::vector<std::string>> translate(const std::string& model_dir, const json& sources, int beam,
                                                int max_decoding) {
  pipeline::Translator translator(model_dir);
  const models::ModelDescription& desc = translator.model().description();
  const int32_t eos = desc.tokens.eos;
  std::vector<std::vector<int32_t>> ids;
  for (const auto& s : sources) {
    // CTranslate2 appends the EOS itself when its config says add_source_eos, as our tokenizer does.
    ids.push_back(source_ids(model_dir, s.get<std::vector<std::string>>()));
    if (desc.tokenizer.add_eos && (ids.back().empty() || ids.back().back() != eos)) ids.back().push_back(eos);
  }
  pipeline::TranslateOptions o;
  o.beam_size = beam;
  o.length_penalty = 1.0f;
  o.max_length_a = 0;
  o.max_length_b = max_decoding + 1;  // CTranslate2's limit excludes the EOS nmt counts
  o.max_length = max_decoding + 1;
  const auto out = translator.translate_ids(ids, o);
  std::vector<std::vector<std::string>> pieces;
  for (const auto& hyps : out) {
    std::vector<int32_t> t = hyps.at(0).tokens;
    if (!t.empty() && t.back() == eos) t.pop_back();
    pieces.push_back(translator.tokenizer().target_pieces(t));
  }
  return pieces;
}

}  // namespace

TEST_CASE("ct2: the fixtures translate as CTranslate2 does, greedy and beam 4", "[convert][ct2]") {
  const json golden = json::parse(test::read_file(ct2_fixture("golden.json")));
  const int max_decoding = golden["max_decoding_length"];
  for (const auto& [name, g] : golden["models"].items()) {
    INFO(name);
    test::TempDir tmp;
    // int8 weights computed in float32, as CTranslate2's compute_type float32 does.
    const models::ConvertReport report =
        models::convert_ct2(ct2_fixture(name), {}, to(tmp.file("m"), models::ConvertDType::kF32));
    CHECK(report.description.config.pre_norm == (name.rfind("prenorm", 0) == 0));
    CHECK(report.description.config.final_norm == report.description.config.pre_norm);
    // The converted model follows CTranslate2's beam rules (docs/search.md): greedy and beam 4 give every
    // sentence as CTranslate2 did (the Marian models' sentence 3 runs to the length limit in one of its
    // beams: it tells whether the EOS counts in the length).
    CHECK(report.description.decoding.beam_rules == core::BeamRules::kCTranslate2);
    for (const auto& [search, beam, allowed] : {std::tuple{"greedy", 1, 0}, std::tuple{"beam4", 4, 0}}) {
      INFO(search);
      const auto got = translate(tmp.file("m"), g["sources"], beam, max_decoding);
      REQUIRE(got.size() == g[search].size());
      int differ = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != g[search][i].get<std::vector<std::string>>()) ++differ;
      }
      CHECK(differ <= allowed);
    }
  }
}

TEST_CASE("ct2: int8 weights stay int8 by default, with CTranslate2's values", "[convert][ct2]") {
  test::TempDir tmp;
  const auto kept = models::convert_ct2(ct2_fixture("marian-int8"), {}, to(tmp.file("i8")));
  CHECK(kept.dtype == models::DType::kI8);
  const auto f16 = models::convert_ct2(ct2_fixture("prenorm"), {}, to(tmp.file("f16")));
  CHECK(f16.dtype == models::DType::kF16);
  // The Marian model: the decoder starts from an appended all-zero row that takes no probability mass.
  const json meta = json::parse(test::read_file(tmp.file("i8/model.json")));
  CHECK(meta["tokens"]["decoder_start"] == 337);
  CHECK(meta["tokens"]["pad"] == 337);
  CHECK(meta["tokenizer"]["add_eos"] == true);
  CHECK(meta["config"]["positions"] == "table");
}

TEST_CASE("ct2: a CTranslate2 directory is told from its files", "[convert][ct2]") {
  CHECK(cli::detect_layout(ct2_fixture("marian")) == "ct2");
}

TEST_CASE("ct2: refusals name the file and what is wrong", "[convert][ct2]") {
  test::TempDir tmp;
  const std::string src = tmp.file("src");
  fs::copy(ct2_fixture("marian"), src, fs::copy_options::recursive);
  const std::string bin = test::read_file(src + "/model.bin");
  auto refused = [&](const std::string& bytes, const std::string& expected) {
    INFO(expected);
    try {
      models::Ct2ModelBin::parse(bytes, "model.bin");
      FAIL("accepted");
    } catch (const models::ModelError& e) {
      CHECK_THAT(e.what(), Catch::Contains(expected));
    }
  };
  // Truncated anywhere: a clean refusal (every 97th length keeps this fast).
  for (size_t n = 0; n < bin.size(); n += 97) refused(bin.substr(0, n), "model.bin: ");
  refused(bin + "x", "1 bytes follow the last alias");
  std::string v = bin;
  const uint32_t version = 9;
  std::memcpy(v.data(), &version, 4);
  refused(v, "binary version 9 is not supported");
  // The first variable's first dimension made huge: its size no longer matches, nothing is allocated.
  std::string huge = bin;
  const size_t spec_end = 4 + 2 + std::strlen("TransformerSpec") + 1 + 4;
  uint32_t count = 0;
  std::memcpy(&count, huge.data() + spec_end, 4);
  count = 0xffffffffu;
  std::memcpy(huge.data() + spec_end, &count, 4);
  refused(huge, "model.bin: ");  // the aliases read as variables, then the end of the file
  uint16_t name_len = 0;
  std::memcpy(&name_len, huge.data() + spec_end + 4, 2);
  const size_t dim0 = spec_end + 4 + 2 + name_len + 1;
  std::string big = bin;
  const uint32_t dim = 0xfffffff0u;
  std::memcpy(big.data() + dim0, &dim, 4);
  refused(big, "model.bin: variable '");

  // Another spec is refused by name.
  std::string whisper = bin.substr(0, 4);
  const std::string name = "WhisperSpec";
  const uint16_t len = static_cast<uint16_t>(name.size() + 1);
  whisper.append(reinterpret_cast<const char*>(&len), 2).append(name).push_back('\0');
  whisper.append(std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
                             12));  // revision 1, no variables, no aliases
  test::write_file(src + "/model.bin", whisper);
  try {
    models::convert_ct2(src, {}, to(tmp.file("out")));
    FAIL("accepted");
  } catch (const models::ModelError& e) {
    CHECK_THAT(e.what(), Catch::Contains("spec 'WhisperSpec' is not supported"));
  }
  CHECK_FALSE(fs::exists(tmp.file("out/model.json")));

  // No SentencePiece model: a usage error naming the options.
  test::write_file(src + "/model.bin", bin);
  fs::remove(src + "/source.spm");
  CHECK_THROWS_AS(models::convert_ct2(src, {}, to(tmp.file("out"))), core::UsageError);
}

TEST_CASE("argos: a .argosmodel and its directory convert with metadata.json's languages", "[convert][ct2]") {
  test::TempDir tmp;
  const std::string model = ct2_fixture("prenorm-int8");
  const std::string metadata =
      R"({"package_version": "1.0", "argos_version": "1.0", "from_code": "en", "to_code": "de", "type": "translate"})";
  test::ZipMembers members = {
      {"translate-en_de-1_0/metadata.json", metadata},
      {"translate-en_de-1_0/sentencepiece.model", test::read_file(model + "/source.spm")}};
  for (const char* f : {"model.bin", "config.json", "shared_vocabulary.json"})
    members.push_back({std::string("translate-en_de-1_0/model/") + f, test::read_file(model + "/" + f)});
  const std::string package = tmp.file("en_de.argosmodel");
  test::write_zip(package, members);
  CHECK(cli::detect_layout(package) == "argos");
  const auto report = models::convert_argos(package, to(tmp.file("out")));
  CHECK(report.description.source_lang == "en");
  CHECK(report.description.target_lang == "de");
  CHECK(report.description.decoding.beam_size == models::kArgosBeamSize);
  CHECK(report.dtype == models::DType::kI8);
  pipeline::Translator translator(tmp.file("out"));  // it loads

  // Unpacked, with bpe.model instead of SentencePiece: refused, saying so.
  const std::string dir = tmp.file("pkg");
  for (const auto& [name, bytes] : members) tmp.write("pkg/" + name.substr(name.find('/') + 1), bytes);
  CHECK(cli::detect_layout(dir) == "argos");
  fs::rename(dir + "/sentencepiece.model", dir + "/bpe.model");
  CHECK_THROWS_WITH(models::convert_argos(dir, to(tmp.file("out2"))), Catch::Contains("bpe.model"));
  fs::rename(dir + "/bpe.model", dir + "/sentencepiece.model");
  tmp.write("pkg/metadata.json", R"({"from_code": "en", "to_code": "de", "target_prefix": "__de__"})");
  CHECK_THROWS_WITH(models::convert_argos(dir, to(tmp.file("out2"))),
                    Catch::Contains("target_prefix '__de__'"));
  CHECK_FALSE(fs::exists(tmp.file("out2/model.json")));
}
