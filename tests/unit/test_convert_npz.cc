// nmt convert marian-npz: settings, arrays, vocabularies and refusals by name.
#include "convert_test_support.h"

using namespace convert_test;

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
  CHECK(pipeline::Translator(out).defaults().alignment_layer == 0);  // --alignment's default
  // "last" (Marian's default) writes nothing: the last layer.
  const std::string last = tmp.file("last");
  copy_dir(marian_dir(), tmp.file("src_last"));
  with_layer("last")(tmp.file("src_last"));
  models::convert_marian_npz(tmp.file("src_last"), {}, to(last));
  CHECK(!json::parse(test::read_file(last + "/model.json"))["decoding"].contains("alignment_layer"));
  CHECK(pipeline::Translator(last).defaults().alignment_layer == -1);
  CHECK(contains(marian_refusal(with_layer("9")),
                 "transformer-guided-alignment-layer: must be 'last' or 1..dec-depth"));
  // model.json: a layer the decoder does not have is refused by name.
  json meta = json::parse(test::read_file(out + "/model.json"));
  meta["decoding"]["alignment_layer"] = meta["config"]["decoder_layers"];
  test::write_file(out + "/model.json", meta.dump());
  CHECK_THROWS_WITH(pipeline::Translator(out),
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
  const pipeline::Translator translator(spm_out);
  pipeline::TranslateOptions o = translator.defaults();
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
