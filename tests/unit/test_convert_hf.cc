// nmt convert hf-marian: golden parity, settings, safetensors and refusals by name.
#include "convert_test_support.h"

using namespace convert_test;

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
  const pipeline::Translator translator(tmp.file("m"));
  pipeline::TranslateOptions o = translator.defaults();
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
  // One tensor table each, with its data buffer's size: the refusal each breaks.
  const struct {
    const char* header;
    size_t data_bytes;
    const char* refusal;
  } tables[] = {
      {R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}})", 8,
       "tensor 'x': data_offsets [0, 16] run past the data buffer (8 bytes)"},
      {R"({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8,
       "tensor 'x': shape [3] F32 needs 12 bytes, data_offsets span 8"},
      {R"({"x": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}})", 8,
       "tensor 'x': dtype I64 is not supported"},
      {R"({"x": {"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}})", 4, "unknown dtype 'F99'"},
      {R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
       R"( "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
       12, "tensors 'x' and 'y' overlap"},
      {R"({"x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4,
       "shape entries must be non-negative integers"},
      {R"({"x": {"dtype": "F32", "shape": [1], "offsets": [0, 4]}})", 4, "unknown key 'offsets'"},
  };
  for (const auto& t : tables) {
    INFO(t.header);
    REQUIRE(contains(raw_refusal([&] { return with_header(t.header, std::string(t.data_bytes, '\0')); }),
                     t.refusal));
  }
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
  REQUIRE(contains(hf_refusal([](const std::string& dir) { fs::remove(dir + "/model.safetensors"); }),
                   "model.safetensors: missing (and no pytorch_model.bin either)"));
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
