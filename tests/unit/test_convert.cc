// `nmt convert`: parity of converted OPUS-MT fixtures (Hugging Face and native Marian layouts) with the
// PyTorch reference's golden outputs, the format readers (safetensors, .npz/.npy, Marian YAML), one test
// per refusal, and the command line end to end.
#include <zip.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/error.h"
#include "core/half.h"
#include "models/convert/convert_hf_marian.h"
#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_yaml.h"
#include "models/convert/npz.h"
#include "models/convert/safetensors.h"
#include "models/model_error.h"
#include "models/positions.h"
#include "models/translator.h"
#include "teacher_forced.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
constexpr double kTolerance = 1e-4;

std::string hf_dir() { return test::fixtures_dir() + "/opus/hf"; }
std::string marian_dir() { return test::fixtures_dir() + "/opus/marian"; }
json hf_golden() { return json::parse(test::read_file(test::fixtures_dir() + "/opus/golden.json")); }
json marian_golden() { return json::parse(test::read_file(marian_dir() + "/golden.json")); }

models::ConvertOptions to(const std::string& dir) {
  models::ConvertOptions o;
  o.output_dir = dir;
  return o;
}

void copy_dir(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// ---- safetensors editing --------------------------------------------------------------------------

struct Safetensors {
  json header;
  std::string data;

  static Safetensors load(const std::string& path) {
    const std::string bytes = test::read_file(path);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    return {json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
  }
  void save(const std::string& path) const {
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    const uint64_t n = h.size();
    std::string bytes(reinterpret_cast<const char*>(&n), 8);
    test::write_file(path, bytes + h + data);
  }
  std::string bytes_of(const std::string& name) const {
    const auto& o = header.at(name)["data_offsets"];
    return data.substr(o[0].get<size_t>(), o[1].get<size_t>() - o[0].get<size_t>());
  }
  void add(const std::string& name, const std::string& dtype, const std::vector<int64_t>& shape,
           const std::string& bytes) {
    header[name] = {
        {"dtype", dtype}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data += bytes;
  }
};

// ---- npz editing ----------------------------------------------------------------------------------

std::string npy(const std::string& descr, const std::vector<int64_t>& shape, const std::string& data,
                int version = 1, const std::string& fortran = "False") {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': (" + dims + "), }";
  const size_t preamble = version == 1 ? 10 : 12;
  while ((preamble + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(version) + '\0';
  const uint32_t len = static_cast<uint32_t>(dict.size());
  out.append(reinterpret_cast<const char*>(&len), version == 1 ? 2 : 4);
  return out + dict + data;
}

std::string f32_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// The fixture's members as raw .npy bytes (read with libzip directly, independent of NpzFile).
std::map<std::string, std::string> read_npz_members(const std::string& path) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
  REQUIRE(z != nullptr);
  std::map<std::string, std::string> out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
    std::string bytes(st.size, '\0');
    zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    REQUIRE(zip_fread(f, bytes.data(), st.size) == static_cast<zip_int64_t>(st.size));
    zip_fclose(f);
    out[st.name] = bytes;
  }
  zip_discard(z);
  return out;
}

void write_npz(const std::string& path, const std::map<std::string, std::string>& members) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z != nullptr);
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    REQUIRE(src != nullptr);
    REQUIRE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
}

std::string model_yml(const std::map<std::string, std::string>& members) {
  const std::string& m = members.at("special:model.yml.npy");
  const auto h = models::parse_npy_header(m, "x");
  return m.substr(h.data_offset);
}

void set_model_yml(std::map<std::string, std::string>& members, std::string text) {
  if (text.empty() || text.back() != '\0') text += '\0';
  members["special:model.yml.npy"] = npy("|i1", {static_cast<int64_t>(text.size())}, text);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// ---- parity ---------------------------------------------------------------------------------------

void require_hypotheses(const std::vector<core::Hypothesis>& got, const json& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    REQUIRE(got[k].tokens == expected[k]["ids"].get<std::vector<int32_t>>());
    REQUIRE(got[k].score == Approx(expected[k]["score"].get<double>()).margin(kTolerance));
  }
}

// The golden max lengths come from max_length_a 1, b 5, max_length 512 (the fixture model's defaults);
// converted models carry the source's own defaults, so the tests pass these explicitly.
models::TranslateOptions golden_limits(const models::Translator& translator) {
  models::TranslateOptions o = translator.defaults();
  o.max_length_a = 1.0f;
  o.max_length_b = 5;
  o.max_length = 512;
  return o;
}

// Everything golden.json records, against the model in `dir`. `skip_column`: a logit column not compared
// (-1: none).
void require_parity(const std::string& dir, const json& g, int skip_column) {
  const models::Translator translator(dir);
  const auto& model = translator.model();
  const auto& desc = model.description();
  const auto sources = g["sources"].get<std::vector<std::vector<int32_t>>>();
  const auto texts = g["sources_text"].get<std::vector<std::string>>();
  for (size_t i = 0; i < texts.size(); ++i) {
    auto ids = translator.tokenizer().encode(texts[i]);
    ids.push_back(desc.tokens.eos);
    REQUIRE(ids == sources[i]);
    const auto o = golden_limits(translator);
    REQUIRE(translator.max_output_length(static_cast<int>(ids.size()), o) == g["max_lengths"][i].get<int>());
  }
  const int s = g["encoder_output"]["sentence"];
  const auto encoded = model.encode({sources[s]});
  REQUIRE(encoded.memory.size() == g["encoder_output"]["data"].size());
  for (size_t i = 0; i < encoded.memory.size(); ++i) {
    REQUIRE(encoded.memory[i] == Approx(g["encoder_output"]["data"][i].get<double>()).margin(kTolerance));
  }
  const auto tokens = g["decoder_logits"]["tokens"].get<std::vector<int32_t>>();
  const auto logits = test::teacher_forced_logits(model, encoded, 0, tokens);
  const int vocab = desc.config.tgt_vocab_size;
  REQUIRE(logits.size() == g["decoder_logits"]["data"].size());
  for (size_t i = 0; i < logits.size(); ++i) {
    if (static_cast<int>(i % vocab) == skip_column) continue;
    REQUIRE(logits[i] == Approx(g["decoder_logits"]["data"][i].get<double>()).margin(kTolerance));
  }
  models::TranslateOptions greedy = golden_limits(translator);
  greedy.beam_size = 1;
  greedy.length_penalty = g["search"]["length_penalty"];
  const auto greedy_out = translator.translate_ids(sources, greedy);
  for (size_t i = 0; i < sources.size(); ++i)
    require_hypotheses(greedy_out[i], json::array({g["greedy"][i]}));
  for (const auto& b : g["beam"]) {
    models::TranslateOptions o = golden_limits(translator);
    o.beam_size = b["beam_size"];
    o.length_penalty = b["length_penalty"];
    o.n_best = b["n_best"];
    const auto out = translator.translate_ids(sources, o);
    for (size_t i = 0; i < sources.size(); ++i) require_hypotheses(out[i], b["results"][i]);
  }
  greedy.split_sentences = false;  // each text one sentence, as the reference sees it
  const auto translations = translator.translate(texts, greedy);
  for (size_t i = 0; i < texts.size(); ++i) {
    REQUIRE(translations[i].texts[0] == test::with_source_whitespace(texts[i], g["greedy_text"][i]));
  }
}

// ---- refusals -------------------------------------------------------------------------------------

// Copies `fixture` into a temp dir, lets `edit(dir)` break it, converts with `convert(dir, out)`, and
// returns the ModelError message ("" if it converted). Also checks: one line, no model.json written.
template <class Edit, class Convert>
std::string refusal(const std::string& fixture, Edit&& edit, Convert&& convert) {
  test::TempDir tmp;
  const std::string src = tmp.file("src"), out = tmp.file("out");
  copy_dir(fixture, src);
  edit(src);
  try {
    convert(src, out);
  } catch (const models::ModelError& e) {
    const std::string msg = e.what();
    INFO(msg);
    REQUIRE(msg.find('\n') == std::string::npos);
    REQUIRE(!fs::exists(out + "/model.json"));
    return msg;
  }
  return "";
}

template <class Edit>
std::string hf_refusal(Edit&& edit) {
  return refusal(hf_dir(), edit, [](const std::string& src, const std::string& out) {
    models::convert_hf_marian(src, to(out));
  });
}

template <class Edit>
std::string marian_refusal(Edit&& edit) {
  return refusal(marian_dir(), edit, [](const std::string& src, const std::string& out) {
    models::convert_marian_npz(src, {}, to(out));
  });
}

void edit_config(const std::string& dir, const std::string& key, const json& value) {
  json c = json::parse(test::read_file(dir + "/config.json"));
  if (value.is_null()) {
    c.erase(key);
  } else {
    c[key] = value;
  }
  test::write_file(dir + "/config.json", c.dump(2));
}

template <class Edit>
void edit_safetensors(const std::string& dir, Edit&& edit) {
  Safetensors st = Safetensors::load(dir + "/model.safetensors");
  edit(st);
  st.save(dir + "/model.safetensors");
}

template <class Edit>
void edit_npz(const std::string& dir, Edit&& edit) {
  auto members = read_npz_members(dir + "/model.npz");
  edit(members);
  write_npz(dir + "/model.npz", members);
}

bool contains(const std::string& haystack, const std::string& needle) {
  INFO("message: " << haystack << "\nexpected to contain: " << needle);
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

// ================================================================================================
// Parity

TEST_CASE("convert hf-marian: the converted model reproduces the golden outputs", "[convert]") {
  test::TempDir tmp;
  const auto report = models::convert_hf_marian(hf_dir(), to(tmp.file("m")));
  REQUIRE(report.warnings.empty());
  REQUIRE(report.dtype == models::DType::kF32);
  const auto& d = report.description;
  REQUIRE(d.config.positions == models::Positions::kSinusoidalConcat);
  REQUIRE(d.config.activation == core::Activation::kSwish);
  REQUIRE(d.config.layer_norm_eps == 1e-5f);
  REQUIRE(d.tokens.pad == 337);
  REQUIRE(d.tokens.decoder_start == 337);
  REQUIRE(d.tokens.eos == 0);
  REQUIRE(d.tokens.unk == 1);
  REQUIRE(d.decoding.beam_size == 4);
  REQUIRE(d.decoding.max_length == 511);
  REQUIRE(d.decoding.max_length_b == 511);
  REQUIRE(d.decoding.max_length_a == 0.0f);
  REQUIRE(!d.decoding.ban_unk);
  REQUIRE(!d.decoding.renormalize);
  REQUIRE(fs::exists(tmp.file("m/vocab.json")));
  require_parity(tmp.file("m"), hf_golden(), -1);
}

TEST_CASE("convert marian-npz: the converted model reproduces native Marian's golden outputs", "[convert]") {
  test::TempDir tmp;
  const auto report = models::convert_marian_npz(marian_dir(), {}, to(tmp.file("m")));
  REQUIRE(report.warnings.empty());
  const auto& d = report.description;
  REQUIRE(d.config.positions == models::Positions::kSinusoidalMarian);
  REQUIRE(d.config.layer_norm_eps == 1e-6f);
  REQUIRE(d.config.src_vocab_size == 338);
  REQUIRE(d.tokens.pad == 337);
  REQUIRE(d.tokens.decoder_start == 337);
  REQUIRE(d.tokens.eos == 0);
  REQUIRE(d.tokens.unk == 1);
  REQUIRE(d.decoding.ban_unk);
  REQUIRE(!d.decoding.renormalize);
  REQUIRE(d.decoding.beam_size == 4);
  REQUIRE(d.decoding.length_penalty == 1.0f);
  // The golden logits have the pad column at 0 (the appended bias entry); ours is kMarianPadLogit so
  // pad takes no probability mass, as in Marian, where pad does not exist. Compare everything else.
  require_parity(tmp.file("m"), marian_golden(), 337);
  const models::Transformer model(tmp.file("m"));
  const auto enc = model.encode({{5, 6, 0}});
  REQUIRE(test::teacher_forced_logits(model, enc, 0, {337})[337] < -60000.0f);
}

TEST_CASE("convert: the vocabulary written from vocab.yml matches the Hugging Face vocab.json", "[convert]") {
  test::TempDir tmp;
  models::convert_marian_npz(marian_dir(), {}, to(tmp.file("m")));
  const json ours = json::parse(test::read_file(tmp.file("m/vocab.json")));
  const json hf = json::parse(test::read_file(hf_dir() + "/vocab.json"));
  REQUIRE(ours == hf);
}

TEST_CASE("convert --dtype f16 writes half weights that still work", "[convert]") {
  test::TempDir tmp;
  models::ConvertOptions o = to(tmp.file("m"));
  o.dtype = models::ConvertDType::kF16;
  const auto report = models::convert_hf_marian(hf_dir(), o);
  REQUIRE(report.dtype == models::DType::kF16);
  const models::Checkpoint ckpt(tmp.file("m"));
  for (const auto& t : ckpt.tensors()) REQUIRE(t.dtype == models::DType::kF16);
  const json g = hf_golden();
  const models::Transformer model(tmp.file("m"));
  const auto enc = model.encode({g["sources"][0].get<std::vector<int32_t>>()});
  const auto logits =
      test::teacher_forced_logits(model, enc, 0, g["decoder_logits"]["tokens"].get<std::vector<int32_t>>());
  for (size_t i = 0; i < logits.size(); ++i) {
    REQUIRE(logits[i] == Approx(g["decoder_logits"]["data"][i].get<double>()).margin(0.05));
  }
}

TEST_CASE("convert hf-marian: F16 and BF16 sources, duplicated tied embeddings, position tables",
          "[convert]") {
  test::TempDir tmp;
  copy_dir(hf_dir(), tmp.file("src"));
  // Every tensor as F16, plus the tied copies and sinusoid tables that real checkpoints may carry.
  Safetensors st = Safetensors::load(tmp.file("src/model.safetensors"));
  Safetensors half;
  for (auto it = st.header.begin(); it != st.header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string raw = st.bytes_of(it.key());
    std::vector<float> f(raw.size() / 4);
    std::memcpy(f.data(), raw.data(), raw.size());
    std::string h;
    for (float x : f) {
      const uint16_t b = core::float_to_half(x);
      h.append(reinterpret_cast<const char*>(&b), 2);
    }
    half.add(it.key(), "F16", it.value()["shape"].get<std::vector<int64_t>>(), h);
  }
  const std::string shared = half.bytes_of("model.shared.weight");
  half.add("lm_head.weight", "F16", {338, 32}, shared);
  half.add("model.decoder.embed_tokens.weight", "F16", {338, 32}, shared);
  half.save(tmp.file("src/model.safetensors"));
  const auto report = models::convert_hf_marian(tmp.file("src"), to(tmp.file("m")));
  REQUIRE(report.dtype == models::DType::kF16);  // kept
  const models::Checkpoint ckpt(tmp.file("m"));
  for (const auto& t : ckpt.tensors()) REQUIRE(t.dtype == models::DType::kF16);
  const models::Translator translator(tmp.file("m"));
  models::TranslateOptions o = translator.defaults();
  o.beam_size = 1;
  REQUIRE(translator.translate({"A dog."}, o).size() == 1);
}

TEST_CASE("safetensors: BF16 values widen exactly", "[convert]") {
  test::TempDir tmp;
  Safetensors bf;
  const uint16_t one = 0x3F80, minus_two_and_half = 0xC020;
  std::string bytes(reinterpret_cast<const char*>(&one), 2);
  bytes.append(reinterpret_cast<const char*>(&minus_two_and_half), 2);
  bf.add("x", "BF16", {2}, bytes);
  bf.header["__metadata__"] = {{"format", "pt"}};
  bf.save(tmp.file("bf16.safetensors"));
  const models::SafetensorsFile f(tmp.file("bf16.safetensors"));
  REQUIRE(f.read_f32("x") == std::vector<float>{1.0f, -2.5f});
  REQUIRE(f.metadata().at("format") == "pt");
  REQUIRE(f.tensors().size() == 1);
}

TEST_CASE("convert hf-marian: separate vocabularies and untied output", "[convert]") {
  test::TempDir tmp;
  const std::string src = tmp.file("src");
  copy_dir(hf_dir(), src);
  edit_config(src, "share_encoder_decoder_embeddings", false);
  edit_config(src, "tie_word_embeddings", false);
  test::write_file(src + "/target_vocab.json", test::read_file(src + "/vocab.json"));
  edit_safetensors(src, [](Safetensors& st) {
    const std::string shared = st.bytes_of("model.shared.weight");
    st.header.erase("model.shared.weight");
    st.add("model.encoder.embed_tokens.weight", "F32", {338, 32}, shared);
    st.add("model.decoder.embed_tokens.weight", "F32", {338, 32}, shared);
    st.add("lm_head.weight", "F32", {338, 32}, shared);
  });
  const auto report = models::convert_hf_marian(src, to(tmp.file("m")));
  REQUIRE(!report.description.config.shared_embeddings);
  REQUIRE(!report.description.config.tied_output);
  REQUIRE(fs::exists(tmp.file("m/source_vocab.json")));
  REQUIRE(fs::exists(tmp.file("m/target_vocab.json")));
  // Same numbers, stored three times: still the golden model.
  require_parity(tmp.file("m"), hf_golden(), -1);
}

TEST_CASE("convert hf-marian: generation settings", "[convert]") {
  test::TempDir tmp;
  const std::string src = tmp.file("src");
  copy_dir(hf_dir(), src);
  json gen = json::parse(test::read_file(src + "/generation_config.json"));
  gen["num_beams"] = 6;
  gen["length_penalty"] = 0.6;
  gen["max_length"] = 100;
  gen["renormalize_logits"] = true;
  gen["bad_words_ids"] = json::array({json::array({337}), json::array({1}), json::array({5, 6})});
  gen["no_repeat_ngram_size"] = 3;
  test::write_file(src + "/generation_config.json", gen.dump());
  const auto report = models::convert_hf_marian(src, to(tmp.file("m")));
  const auto& dec = report.description.decoding;
  REQUIRE(dec.beam_size == 6);
  REQUIRE(dec.length_penalty == 0.6f);
  REQUIRE(dec.max_length == 99);
  REQUIRE(dec.max_length_b == 99);
  REQUIRE(dec.renormalize);
  REQUIRE(dec.ban_unk);
  REQUIRE(report.warnings.size() == 2);
  REQUIRE(contains(report.warnings[0], "[5,6]"));
  REQUIRE(contains(report.warnings[1], "no_repeat_ngram_size"));

  fs::remove(src + "/generation_config.json");  // config.json's values apply
  const auto from_config = models::convert_hf_marian(src, to(tmp.file("m2")));
  REQUIRE(from_config.description.decoding.beam_size == 4);
  REQUIRE(!from_config.description.decoding.renormalize);
  REQUIRE(!from_config.description.decoding.ban_unk);
}

// ================================================================================================
// Refusals: Hugging Face

TEST_CASE("convert hf-marian refuses unsupported configurations by name", "[convert]") {
  auto config_refusal = [](const std::string& key, const json& value) {
    return hf_refusal([&](const std::string& dir) { edit_config(dir, key, value); });
  };
  REQUIRE(contains(config_refusal("static_position_embeddings", false), "static_position_embeddings"));
  REQUIRE(contains(config_refusal("normalize_embedding", true), "normalize_embedding"));
  REQUIRE(contains(config_refusal("activation_function", "gelu_new"), "activation_function: 'gelu_new'"));
  REQUIRE(contains(config_refusal("decoder_attention_heads", 2), "decoder_attention_heads"));
  REQUIRE(contains(config_refusal("decoder_ffn_dim", 32), "decoder_ffn_dim"));
  REQUIRE(contains(config_refusal("model_type", "bart"), "model_type"));
  REQUIRE(contains(config_refusal("d_model", nullptr), "d_model: missing"));
  REQUIRE(contains(config_refusal("vocab_size", 400), "decoder_vocab_size: differs from vocab_size"));
  REQUIRE(config_refusal("decoder_vocab_size", nullptr).empty());  // defaults to vocab_size
  const std::string msg =
      hf_refusal([](const std::string& dir) { test::write_file(dir + "/config.json", "{"); });
  REQUIRE(contains(msg, "config.json: not valid JSON"));
}

TEST_CASE("convert hf-marian accepts swish, silu, gelu and relu, absent means gelu", "[convert]") {
  const std::vector<std::pair<json, core::Activation>> cases = {{"swish", core::Activation::kSwish},
                                                                {"silu", core::Activation::kSwish},
                                                                {"gelu", core::Activation::kGelu},
                                                                {"relu", core::Activation::kRelu},
                                                                {nullptr, core::Activation::kGelu}};
  for (const auto& [value, expected] : cases) {
    test::TempDir tmp;
    copy_dir(hf_dir(), tmp.file("src"));
    edit_config(tmp.file("src"), "activation_function", value);
    const auto r = models::convert_hf_marian(tmp.file("src"), to(tmp.file("m")));
    REQUIRE(r.description.config.activation == expected);
  }
}

TEST_CASE("convert hf-marian refuses missing, misshapen, unknown and inconsistent tensors", "[convert]") {
  auto st_refusal = [](auto&& edit) {
    return hf_refusal([&](const std::string& dir) { edit_safetensors(dir, edit); });
  };
  REQUIRE(contains(st_refusal([](Safetensors& st) { st.header.erase("model.decoder.layers.1.fc2.bias"); }),
                   "missing tensor 'model.decoder.layers.1.fc2.bias'"));
  REQUIRE(contains(st_refusal([](Safetensors& st) { st.header.erase("model.shared.weight"); }),
                   "missing tensor 'model.shared.weight'"));
  REQUIRE(contains(st_refusal([](Safetensors& st) { st.header.erase("final_logits_bias"); }),
                   "missing tensor 'final_logits_bias'"));
  REQUIRE(contains(st_refusal([](Safetensors& st) {
                     st.header["model.encoder.layers.0.fc1.weight"]["shape"] = {32, 64};
                   }),
                   "tensor 'model.encoder.layers.0.fc1.weight': expected shape [64,32], got [32,64]"));
  REQUIRE(contains(st_refusal([](Safetensors& st) {
                     st.add("model.encoder.layernorm_embedding.weight", "F32", {32}, std::string(128, '\0'));
                   }),
                   "unexpected tensor 'model.encoder.layernorm_embedding.weight'"));
  REQUIRE(contains(st_refusal([](Safetensors& st) {
                     st.add("model.encoder.layers.2.fc1.bias", "F32", {64}, std::string(256, '\0'));
                   }),
                   "unexpected tensor 'model.encoder.layers.2.fc1.bias'"));
  REQUIRE(contains(st_refusal([](Safetensors& st) {
                     std::string other = st.bytes_of("model.shared.weight");
                     other[100] ^= 1;
                     st.add("lm_head.weight", "F32", {338, 32}, other);
                   }),
                   "tensor 'lm_head.weight' should be tied to 'model.shared.weight'"));
  REQUIRE(contains(
      st_refusal([](Safetensors& st) {
        st.add("model.encoder.embed_positions.weight", "F32", {512, 32}, std::string(512 * 32 * 4, '\0'));
      }),
      "learned positions are not supported"));
  REQUIRE(contains(st_refusal([](Safetensors& st) {
                     std::string bias = st.bytes_of("final_logits_bias");
                     const float nan = std::nanf("");
                     std::memcpy(&bias[8], &nan, 4);
                     st.add("final_logits_bias", "F32", {1, 338}, bias);
                   }),
                   "tensor 'final_logits_bias' contains NaN"));
}

TEST_CASE("convert hf-marian: the embedded position tables, when present, are accepted", "[convert]") {
  test::TempDir tmp;
  copy_dir(hf_dir(), tmp.file("src"));
  edit_safetensors(tmp.file("src"), [](Safetensors& st) {
    const auto table = models::sinusoid_table(models::Positions::kSinusoidalConcat, 512, 32);
    st.add("model.encoder.embed_positions.weight", "F32", {512, 32}, f32_bytes(table));
    st.add("model.decoder.embed_positions.weight", "F32", {512, 32}, f32_bytes(table));
  });
  const auto r = models::convert_hf_marian(tmp.file("src"), to(tmp.file("m")));
  REQUIRE(r.tensors == models::Checkpoint(tmp.file("m")).tensors().size());
}

TEST_CASE("convert hf-marian refuses broken safetensors files", "[convert]") {
  auto raw_refusal = [](auto&& make) {
    return hf_refusal([&](const std::string& dir) { test::write_file(dir + "/model.safetensors", make()); });
  };
  auto with_header = [](const std::string& header, const std::string& data) {
    const uint64_t n = header.size();
    return std::string(reinterpret_cast<const char*>(&n), 8) + header + data;
  };
  REQUIRE(contains(raw_refusal([] { return std::string("abc"); }), "too short"));
  REQUIRE(contains(raw_refusal([] {
                     const uint64_t n = 1000;
                     return std::string(reinterpret_cast<const char*>(&n), 8) + "{}";
                   }),
                   "header length 1000 exceeds the file"));
  REQUIRE(contains(raw_refusal([&] { return with_header("{" + std::string(1 << 20, ' ') + "}", ""); }),
                   "header length 1048578 is larger than the 1 MiB limit"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header("{\"a\": " + std::string(64, '[') + std::string(64, ']') + "}", "");
                   }),
                   "header nests more than 64 levels deep"));
  REQUIRE(contains(raw_refusal([&] { return with_header("{\"a\": ", ""); }), "header is not valid JSON"));
  REQUIRE(contains(raw_refusal([&] { return with_header("[1, 2]", ""); }), "header is not a JSON object"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}})",
                                        std::string(8, '\0'));
                   }),
                   "tensor 'x': data_offsets [0, 16] run past the data buffer (8 bytes)"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})",
                                        std::string(8, '\0'));
                   }),
                   "tensor 'x': shape [3] F32 needs 12 bytes, data_offsets span 8"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}})",
                                        std::string(8, '\0'));
                   }),
                   "tensor 'x': dtype I64 is not supported"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}})",
                                        std::string(4, '\0'));
                   }),
                   "unknown dtype 'F99'"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                                        R"( "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                                        std::string(12, '\0'));
                   }),
                   "tensors 'x' and 'y' overlap"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})",
                                        std::string(4, '\0'));
                   }),
                   "shape entries must be non-negative integers"));
  REQUIRE(contains(raw_refusal([&] {
                     return with_header(R"({"x": {"dtype": "F32", "shape": [1], "offsets": [0, 4]}})",
                                        std::string(4, '\0'));
                   }),
                   "unknown key 'offsets'"));
}

TEST_CASE("convert hf-marian refuses bad vocabularies and missing files", "[convert]") {
  REQUIRE(contains(hf_refusal([](const std::string& dir) {
                     json v = json::parse(test::read_file(dir + "/vocab.json"));
                     v.erase("<unk>");
                     test::write_file(dir + "/vocab.json", v.dump());
                   }),
                   "vocab.json: has no '<unk>' piece"));
  REQUIRE(contains(hf_refusal([](const std::string& dir) {
                     json v = json::parse(test::read_file(dir + "/vocab.json"));
                     v["extra"] = 338;
                     test::write_file(dir + "/vocab.json", v.dump());
                   }),
                   "piece 'extra': id must be an integer in [0, 338)"));
  REQUIRE(contains(hf_refusal([](const std::string& dir) { fs::remove(dir + "/target.spm"); }),
                   "target.spm: missing"));
  REQUIRE(contains(hf_refusal([](const std::string& dir) {
                     fs::rename(dir + "/model.safetensors", dir + "/pytorch_model.bin");
                   }),
                   "tools/bin_to_safetensors.py"));
  REQUIRE(contains(
      hf_refusal([](const std::string& dir) { edit_config(dir, "share_encoder_decoder_embeddings", false); }),
      "target_vocab.json: cannot open"));
}

TEST_CASE("convert: the output directory must be new or empty unless forced", "[convert]") {
  test::TempDir tmp;
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  models::convert_hf_marian(hf_dir(), to(out));  // empty: fine
  REQUIRE_THROWS_AS(models::convert_hf_marian(hf_dir(), to(out)), core::UsageError);
  REQUIRE_THROWS_AS(models::convert_hf_marian(hf_dir(), to(hf_dir())), core::UsageError);
  test::write_file(tmp.file("file"), "x");
  REQUIRE_THROWS_AS(models::convert_hf_marian(hf_dir(), to(tmp.file("file"))), core::UsageError);
  models::ConvertOptions forced = to(out);
  forced.force = true;
  models::convert_hf_marian(hf_dir(), forced);
  REQUIRE(fs::exists(out + "/model.json"));
  // Everything is validated before the first write, so a refused conversion leaves the directory as it was.
  copy_dir(hf_dir(), tmp.file("broken"));
  edit_safetensors(tmp.file("broken"), [](Safetensors& st) { st.header.erase("final_logits_bias"); });
  REQUIRE_THROWS_AS(models::convert_hf_marian(tmp.file("broken"), forced), models::ModelError);
  REQUIRE(fs::exists(out + "/model.json"));  // refused before writing anything: the old model is intact
}

// ================================================================================================
// Refusals: native Marian

TEST_CASE("convert marian-npz refuses unsupported model.yml settings by name", "[convert]") {
  auto yml_refusal = [](const std::string& from, const std::string& to_text) {
    return marian_refusal([&](const std::string& dir) {
      edit_npz(dir, [&](auto& m) { set_model_yml(m, replace(model_yml(m), from, to_text)); });
    });
  };
  REQUIRE(contains(yml_refusal("transformer-postprocess: dan", "transformer-postprocess: da"),
                   "transformer-postprocess: 'da' is not supported"));
  REQUIRE(contains(yml_refusal("transformer-preprocess: \"\"", "transformer-preprocess: n"),
                   "transformer-preprocess: 'n' is not supported"));
  REQUIRE(contains(yml_refusal("transformer-postprocess-emb: d", "transformer-postprocess-emb: dn"),
                   "transformer-postprocess-emb: 'dn'"));
  REQUIRE(contains(yml_refusal("type: transformer", "type: s2s"), "type: 's2s' is not supported"));
  REQUIRE(contains(yml_refusal("transformer-ffn-activation: swish", "transformer-ffn-activation: gelu"),
                   "transformer-ffn-activation: 'gelu'"));
  REQUIRE(contains(yml_refusal("transformer-train-position-embeddings: false",
                               "transformer-train-position-embeddings: true"),
                   "transformer-train-position-embeddings"));
  REQUIRE(contains(yml_refusal("right-left: false", "right-left: true"), "right-left"));
  REQUIRE(
      contains(yml_refusal("transformer-ffn-depth: 2", "transformer-ffn-depth: 3"), "transformer-ffn-depth"));
  REQUIRE(contains(yml_refusal("transformer-heads: 4", "transformer-heads: 5"),
                   "transformer-heads: must divide"));
  REQUIRE(contains(yml_refusal("dim-emb: 32", "dim-emb: 64"),
                   "array 'Wemb': expected shape [vocab, 64], got [337,32]"));
  REQUIRE(contains(yml_refusal("enc-depth: 2", "enc-depth: 3"), "missing array 'encoder_l3_self_Wq'"));
  REQUIRE(contains(yml_refusal("enc-depth: 2", "enc-depth: 1"), "unexpected array 'encoder_l2_"));
  REQUIRE(contains(yml_refusal("tied-embeddings-all: true", "tied-embeddings-all: false"),
                   "missing array 'encoder_Wemb'"));
  REQUIRE(contains(yml_refusal("  - 337\n  - 337", "  - 300\n  - 300"), "dim-vocabs says 300"));
  REQUIRE(contains(marian_refusal([](const std::string& dir) {
                     edit_npz(dir, [](auto& m) { m.erase("special:model.yml.npy"); });
                   }),
                   "no 'special:model.yml'"));
}

TEST_CASE("convert marian-npz: transformer-guided-alignment-layer is the model's alignment layer",
          "[convert][alignment]") {
  const auto with_layer = [](const std::string& value) {
    return [value](const std::string& dir) {
      edit_npz(dir, [&](auto& m) {
        std::string yml = model_yml(m);
        yml.erase(yml.find('\0'));
        set_model_yml(m, yml + (yml.back() == '\n' ? "" : "\n") +
                             "transformer-guided-alignment-layer: " + value + "\n");
      });
    };
  };
  test::TempDir tmp;
  const std::string src = tmp.file("src"), out = tmp.file("out");
  copy_dir(marian_dir(), src);
  with_layer("1")(src);
  REQUIRE(models::convert_marian_npz(src, {}, to(out)).description.decoding.alignment_layer == 0);
  CHECK(json::parse(test::read_file(out + "/model.json"))["decoding"]["alignment_layer"] == 0);
  CHECK(models::Translator(out).defaults().alignment_layer == 0);  // --alignment's default
  // "last" (Marian's default) writes nothing: the last layer.
  const std::string last = tmp.file("last");
  copy_dir(marian_dir(), tmp.file("src_last"));
  with_layer("last")(tmp.file("src_last"));
  models::convert_marian_npz(tmp.file("src_last"), {}, to(last));
  CHECK(!json::parse(test::read_file(last + "/model.json"))["decoding"].contains("alignment_layer"));
  CHECK(models::Translator(last).defaults().alignment_layer == -1);
  CHECK(contains(marian_refusal(with_layer("9")),
                 "transformer-guided-alignment-layer: must be 'last' or 1..dec-depth"));
  // model.json: a layer the decoder does not have is refused by name.
  json meta = json::parse(test::read_file(out + "/model.json"));
  meta["decoding"]["alignment_layer"] = meta["config"]["decoder_layers"];
  test::write_file(out + "/model.json", meta.dump());
  CHECK_THROWS_WITH(models::Translator(out),
                    Catch::Contains("alignment_layer: must be below decoder_layers"));
}

TEST_CASE("convert marian-npz refuses missing, misshapen and unknown arrays, and bad .npy headers",
          "[convert]") {
  auto npz_refusal = [](auto&& edit) {
    return marian_refusal([&](const std::string& dir) { edit_npz(dir, edit); });
  };
  using Members = std::map<std::string, std::string>;
  REQUIRE(contains(npz_refusal([](Members& m) { m.erase("decoder_l2_context_Wk.npy"); }),
                   "missing array 'decoder_l2_context_Wk'"));
  REQUIRE(contains(npz_refusal([](Members& m) { m.erase("decoder_ff_logit_out_b.npy"); }),
                   "missing array 'decoder_ff_logit_out_b'"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_l1_ffn_W1.npy"] = npy("<f4", {64, 32}, std::string(64 * 32 * 4, '\0'));
                   }),
                   "array 'encoder_l1_ffn_W1': expected shape [32,64], got [64,32]"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_emb_ln_scale.npy"] = npy("<f4", {1, 32}, std::string(128, '\0'));
                   }),
                   "unexpected array 'encoder_emb_ln_scale'"));
  REQUIRE(contains(npz_refusal([](Members& m) { m["readme.txt"] = "hello"; }),
                   "member 'readme.txt' is not a .npy"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_l1_self_bq.npy"] = npy("<f4", {1, 32}, std::string(128, '\0'), 1, "True");
                   }),
                   "encoder_l1_self_bq.npy: fortran_order True is not supported"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_l1_self_bq.npy"] = npy(">f4", {1, 32}, std::string(128, '\0'));
                   }),
                   "dtype '>f4' is not supported"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_l1_self_bq.npy"] = npy("<f8", {1, 32}, std::string(256, '\0'));
                   }),
                   "dtype '<f8' is not supported"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     m["encoder_l1_self_bq.npy"] = npy("<f4", {1, 32}, std::string(124, '\0'));
                   }),
                   "shape (1, 32) <f4 needs 128 data bytes, the array has 124"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     std::string a = npy("<f4", {1, 32}, std::string(128, '\0'));
                     a[6] = 4;
                     m["encoder_l1_self_bq.npy"] = a;
                   }),
                   "unsupported .npy version 4.0"));
  REQUIRE(
      contains(npz_refusal([](Members& m) { m["encoder_l1_self_bq.npy"] = "PK not numpy"; }), "bad magic"));
  REQUIRE(contains(npz_refusal([](Members& m) {
                     std::string bq = m["encoder_l1_self_bq.npy"];
                     const auto h = models::parse_npy_header(bq, "x");
                     const float nan = std::nanf("");
                     std::memcpy(&bq[h.data_offset], &nan, 4);
                     m["encoder_l1_self_bq.npy"] = bq;
                   }),
                   "'encoder_l1_self_bq' contains NaN"));
  REQUIRE(contains(
      marian_refusal([](const std::string& dir) { test::write_file(dir + "/model.npz", "not a zip"); }),
      "cannot open as a zip archive"));
}

TEST_CASE("convert marian-npz refuses bad vocabularies and finds its files", "[convert]") {
  REQUIRE(contains(marian_refusal([](const std::string& dir) {
                     test::write_file(dir + "/vocab.yml", "\"</s>\": 0\n\"<unk>\": 1\nfoo: 400\n");
                   }),
                   "vocab.yml: 401 ids, but the model's embeddings have 337 rows"));
  REQUIRE(contains(marian_refusal([](const std::string& dir) {
                     test::write_file(dir + "/vocab.yml", "\"</s>\": 0\nfoo: 1\n");
                   }),
                   "vocab.yml: vocabulary has no '<unk>'"));
  REQUIRE(contains(marian_refusal([](const std::string& dir) {
                     test::write_file(dir + "/vocab.yml", "\"</s>\": 0\n\"<unk>\": 1\nfoo: 1\n");
                   }),
                   "vocab.yml:3: id 1 is used twice"));
  REQUIRE(contains(marian_refusal([](const std::string& dir) { fs::remove(dir + "/source.spm"); }),
                   "source.spm: missing"));

  test::TempDir tmp;
  const std::string src = tmp.file("src");
  copy_dir(marian_dir(), src);
  fs::remove(src + "/decoder.yml");
  // No decoder.yml: the vocabulary must be named.
  REQUIRE_THROWS_AS(models::convert_marian_npz(src, {}, to(tmp.file("a"))), core::UsageError);
  models::MarianFiles files;
  files.source_vocab = files.target_vocab = src + "/vocab.yml";
  const auto r = models::convert_marian_npz(src, files, to(tmp.file("b")));
  REQUIRE(r.description.decoding.beam_size == 12);  // Marian's default without decoder.yml
  // Two .npz files: --npz decides.
  fs::copy_file(src + "/model.npz", src + "/other.npz");
  REQUIRE_THROWS_AS(models::convert_marian_npz(src, files, to(tmp.file("c"))), core::UsageError);
  files.npz = src + "/other.npz";
  models::convert_marian_npz(src, files, to(tmp.file("d")));
  require_parity(tmp.file("d"), marian_golden(), 337);
}

TEST_CASE("convert marian-npz: separate vocabularies and a SentencePiece vocabulary", "[convert]") {
  test::TempDir tmp;
  const std::string src = tmp.file("src");
  copy_dir(marian_dir(), src);
  fs::copy_file(src + "/vocab.yml", src + "/target.vocab.yml");
  test::write_file(src + "/decoder.yml",
                   replace(test::read_file(src + "/decoder.yml"), "  - vocab.yml\n  - vocab.yml",
                           "  - vocab.yml\n  - target.vocab.yml"));
  const auto r = models::convert_marian_npz(src, {}, to(tmp.file("m")));
  REQUIRE(r.description.tokenizer.source_vocab == "source_vocab.json");
  REQUIRE(r.description.tokenizer.target_vocab == "target_vocab.json");
  require_parity(tmp.file("m"), marian_golden(), 337);

  // A SentencePiece vocabulary covers every embedding row or is refused: here 180 pieces for 337 rows.
  models::MarianFiles files;
  files.source_vocab = files.target_vocab = src + "/source.spm";
  REQUIRE_THROWS_WITH(models::convert_marian_npz(src, files, to(tmp.file("short"))),
                      src + "/source.spm: 180 ids, but the model's embeddings have 337 rows");
  // With the embeddings cut to its 180 pieces: ids are the .spm's own (none of the golden numbers apply),
  // no vocab JSON.
  edit_npz(src, [](std::map<std::string, std::string>& m) {
    for (const char* name : {"Wemb.npy", "decoder_ff_logit_out_b.npy"}) {
      const auto a = models::parse_npy(m[name], name);
      std::vector<int64_t> shape = a.shape;
      shape[name[0] == 'W' ? 0 : 1] = 180;
      const size_t bytes = static_cast<size_t>(shape[0] * shape[1]) * 4;
      m[name] = npy("<f4", shape, a.data.substr(0, bytes));
    }
    set_model_yml(m, replace(model_yml(m), "  - 337\n  - 337", "  - 180\n  - 180"));
  });
  const std::string spm_out = tmp.file("spm");
  const auto s = models::convert_marian_npz(src, files, to(spm_out));
  REQUIRE(s.description.tokenizer.source_vocab.empty());
  REQUIRE(s.description.tokens.eos == 3);  // the fixture spm: pad 0, unk 1, bos 2, eos 3
  REQUIRE(s.description.tokens.unk == 1);
  const models::Translator translator(spm_out);
  models::TranslateOptions o = translator.defaults();
  o.beam_size = 1;
  REQUIRE(translator.translate({"A dog."}, o).size() == 1);
  files.source_spm = src + "/target.spm";
  REQUIRE_THROWS_AS(models::convert_marian_npz(src, files, to(tmp.file("x"))), core::UsageError);
}

TEST_CASE("convert marian-npz: f16 arrays are kept as f16", "[convert]") {
  test::TempDir tmp;
  const std::string src = tmp.file("src");
  copy_dir(marian_dir(), src);
  edit_npz(src, [](std::map<std::string, std::string>& m) {
    for (auto& [name, bytes] : m) {
      if (name == "special:model.yml.npy") continue;
      const auto a = models::parse_npy(bytes, name);
      std::string h;
      for (float x : a.to_f32()) {
        const uint16_t b = core::float_to_half(x);
        h.append(reinterpret_cast<const char*>(&b), 2);
      }
      bytes = npy("<f2", a.shape, h, 2);  // version 2 header too
    }
  });
  const auto r = models::convert_marian_npz(src, {}, to(tmp.file("m")));
  REQUIRE(r.dtype == models::DType::kF16);
  const models::Checkpoint ckpt(tmp.file("m"));
  for (const auto& t : ckpt.tensors()) REQUIRE(t.dtype == models::DType::kF16);
}

// ================================================================================================
// Readers

TEST_CASE("npy headers: versions, shapes, dtypes", "[convert]") {
  const std::string data(24, '\0');
  for (int version : {1, 2, 3}) {
    const auto h = models::parse_npy_header(npy("<f4", {2, 3}, data, version), "x");
    REQUIRE(h.dtype == models::NpyDType::kF32);
    REQUIRE(h.shape == std::vector<int64_t>{2, 3});
  }
  REQUIRE(models::parse_npy_header(npy("<f2", {12}, data), "x").shape == std::vector<int64_t>{12});
  REQUIRE(models::parse_npy_header(npy("<f4", {}, std::string(4, '\0')), "x").shape.empty());
  // Python 2 long literals, double quotes, no trailing comma.
  std::string dict = "{\"descr\": \"|u1\", \"shape\": (3L,), \"fortran_order\": False}";
  while ((10 + dict.size() + 1) % 16) dict += ' ';
  std::string v1 = std::string("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(dict.size() + 1);
  v1.append(reinterpret_cast<const char*>(&len), 2);
  v1 += dict + "\nabc";
  const auto h = models::parse_npy_header(v1, "x");
  REQUIRE(h.dtype == models::NpyDType::kU8);
  REQUIRE(h.shape == std::vector<int64_t>{3});
  auto fails = [](const std::string& bytes) {
    try {
      models::parse_npy_header(bytes, "W.npy");
    } catch (const models::ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  REQUIRE(contains(fails(npy("<f4", {2, 3}, data.substr(4))), "needs 24 data bytes, the array has 20"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "'shape'", "'shapE'")), "unexpected key 'shapE'"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "'fortran_order': False, ", std::string(24, ' '))),
                   "lacks 'fortran_order'"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), "(6, )", "(6,x)")), "shape must be a tuple"));
  REQUIRE(contains(fails(replace(npy("<f4", {6}, data), ", }", ",,}")), "malformed header"));
  REQUIRE(contains(fails(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)), "runs past the end"));
  REQUIRE(contains(fails("\x93NUMP"), "bad magic"));
}

TEST_CASE("Marian YAML: flat maps, lists, quoting", "[convert]") {
  const auto y = models::FlatYaml::parse(
      "# comment\n"
      "type: transformer\n"
      "dim-vocabs:\n"
      "  - 58100\n"
      "  - 58101\n"
      "transformer-preprocess: \"\"\n"
      "quoted: 'it''s'\n"
      "flow: [a, \"b c\", 3]\n"
      "empty-list:\n"
      "  []\n"
      "nested:\n"
      "  inner: 1\n"
      "  - skipped\n"
      "beam-size: 6  # trailing comment\n"
      "flag: true\n"
      "---\n",
      "model.yml");
  REQUIRE(y.string("type", "") == "transformer");
  REQUIRE(y.list("dim-vocabs") == std::vector<std::string>{"58100", "58101"});
  REQUIRE(y.string("transformer-preprocess", "x").empty());
  REQUIRE(y.string("quoted", "") == "it's");
  REQUIRE(y.list("flow") == std::vector<std::string>{"a", "b c", "3"});
  REQUIRE(y.list("empty-list").empty());
  REQUIRE(y.has("empty-list"));
  REQUIRE(y.integer("beam-size", 0) == 6);
  REQUIRE(y.boolean("flag", false));
  REQUIRE(y.integer("absent", 42) == 42);
  REQUIRE_THROWS_WITH(y.integer("type", 0), Catch::Contains("model.yml: type: expected an integer"));
  REQUIRE_THROWS_WITH(y.string("dim-vocabs", ""), Catch::Contains("expected a single value"));
  REQUIRE_THROWS_WITH(models::FlatYaml::parse("a: 1\njunk\n", "f.yml"),
                      Catch::Contains("f.yml:2: expected 'key: value'"));
  REQUIRE_THROWS_WITH(models::FlatYaml::parse("a: 1\na: 2\n", "f.yml"), Catch::Contains("'a' appears twice"));
  // special:model.yml is NUL-terminated; anything after the NUL is ignored.
  REQUIRE(models::FlatYaml::parse(std::string("a: 1\n\0garbage", 14), "m").integer("a", 0) == 1);
}

TEST_CASE("Marian vocab.yml: plain, quoted and escaped pieces", "[convert]") {
  const std::string text =
      "\"</s>\": 0\n"
      "\"<unk>\": 1\n"
      "\xE2\x96\x81the: 2\n"      // ▁the, plain UTF-8
      "\"\\u2581der\": 3\n"       // \u escape
      "\"\\\"\": 4\n"             // a double quote
      "'it''s': 5\n"              // single-quoted
      "\"a\\\\b\": 6\n"           // backslash
      "\"\\U0001F600\": 7\n"      // 😀 as \U
      "\"\\ud83d\\ude00x\": 8\n"  // 😀 as a JSON surrogate pair, then x
      "\"\\x41\\t\": 9\n"         // \x and \t
      "a:b: 10\n"                 // colon inside a plain key
      "\"yes\": 11\n"             // would be a boolean unquoted
      "\"123\": 12\n"             // would be a number unquoted
      "\"key\" : 13  # comment\n";
  const auto v = models::parse_vocab_yaml(text, "vocab.yml");
  const std::vector<std::pair<std::string, int32_t>> expected = {{"</s>", 0},
                                                                 {"<unk>", 1},
                                                                 {"\xE2\x96\x81the", 2},
                                                                 {"\xE2\x96\x81"
                                                                  "der",
                                                                  3},
                                                                 {"\"", 4},
                                                                 {"it's", 5},
                                                                 {"a\\b", 6},
                                                                 {"\xF0\x9F\x98\x80", 7},
                                                                 {"\xF0\x9F\x98\x80x", 8},
                                                                 {"A\t", 9},
                                                                 {"a:b", 10},
                                                                 {"yes", 11},
                                                                 {"123", 12},
                                                                 {"key", 13}};
  REQUIRE(v == expected);
  auto fails = [](const std::string& t) {
    try {
      models::parse_vocab_yaml(t, "v.yml");
    } catch (const models::ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  REQUIRE(contains(fails("a: 1\n\"b: 2\n"), "v.yml:2: unterminated quoted string"));
  REQUIRE(contains(fails("a: x\n"), "v.yml:1: id must be an integer"));
  REQUIRE(contains(fails("a: 1\na: 2\n"), "piece 'a' appears twice"));
  REQUIRE(contains(fails("\"\\q\": 1\n"), "unknown escape"));
  REQUIRE(contains(fails("\"\\ud800\": 1\n"), "lone surrogate"));
  REQUIRE(contains(fails("  a: 1\n"), "unexpected indentation"));
  // The fixture's vocab.yml, written by PyYAML-compatible quoting, reads back completely.
  const auto fixture = models::parse_vocab_yaml(test::read_file(marian_dir() + "/vocab.yml"), "vocab.yml");
  REQUIRE(fixture.size() == 337);
}

// ================================================================================================
// Command line

TEST_CASE("nmt convert then nmt translate, end to end", "[convert]") {
  test::TempDir tmp;
  const std::string nmt = test::nmt_binary();
  const json hf = hf_golden();
  const json marian = marian_golden();
  std::string input;
  for (const auto& t : hf["sources_text"]) input += t.get<std::string>() + "\n";
  const std::string limits = " -b 1 --max-length-a 1 --max-length-b 5 --max-length 512 --no-split";

  for (const auto& [from, dir, g] : {std::tuple<std::string, std::string, json>{"hf-marian", hf_dir(), hf},
                                     {"marian-npz", marian_dir(), marian}}) {
    const std::string out = tmp.file(from);
    const auto conv = test::run(nmt + " convert --from " + from + " '" + dir + "' -o '" + out + "'");
    INFO(conv.err);
    REQUIRE(conv.exit_code == 0);
    REQUIRE(contains(conv.out, "converted"));
    const auto tr = test::run(nmt + " translate -m '" + out + "'" + limits, input);
    INFO(tr.err);
    REQUIRE(tr.exit_code == 0);
    std::string expected;
    for (size_t i = 0; i < g["greedy_text"].size(); ++i) {
      expected += test::with_source_whitespace(hf["sources_text"][i], g["greedy_text"][i]) + "\n";
    }
    REQUIRE(tr.out == expected);
  }

  // Refusals: a non-empty output directory is a usage error (64); a broken model exits 2 with one line.
  const auto again =
      test::run(nmt + " convert --from hf-marian '" + hf_dir() + "' -o '" + tmp.file("hf-marian") + "'");
  REQUIRE(again.exit_code == 64);
  REQUIRE(contains(again.err, "--force"));
  copy_dir(hf_dir(), tmp.file("bad"));
  edit_config(tmp.file("bad"), "normalize_embedding", true);
  const auto bad =
      test::run(nmt + " convert --from hf-marian '" + tmp.file("bad") + "' -o '" + tmp.file("o") + "'");
  REQUIRE(bad.exit_code == 2);
  REQUIRE(contains(bad.err, "nmt: error: "));
  REQUIRE(contains(bad.err, "normalize_embedding"));
  REQUIRE(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  REQUIRE(!fs::exists(tmp.file("o")));
  const auto mixed =
      test::run(nmt + " convert --from hf-marian '" + hf_dir() + "' --npz x.npz -o '" + tmp.file("p") + "'");
  REQUIRE(mixed.exit_code == 64);
  // The wrong --from gets a hint.
  const auto wrong =
      test::run(nmt + " convert --from hf-marian '" + marian_dir() + "' -o '" + tmp.file("r") + "'");
  REQUIRE(wrong.exit_code == 2);
  REQUIRE(contains(wrong.err,
                   "config.json: missing (an .npz is there: for a native Marian release use --from "
                   "marian-npz)"));
  const auto wrong2 =
      test::run(nmt + " convert --from marian-npz '" + hf_dir() + "' -o '" + tmp.file("r") + "'");
  REQUIRE(wrong2.exit_code == 2);
  REQUIRE(contains(wrong2.err, "use --from hf-marian"));
  const auto help = test::run(nmt + " convert --help");
  REQUIRE(help.exit_code == 0);
  REQUIRE(contains(help.out, "Examples:"));
  REQUIRE(contains(help.out, "--from"));
  const auto missing = test::run(nmt + " convert '" + hf_dir() + "' -o '" + tmp.file("q") + "'");
  REQUIRE(missing.exit_code == 64);
}
