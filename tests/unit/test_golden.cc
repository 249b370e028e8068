// Golden parity with the PyTorch reference (tools/reference.py, fixtures from tools/make_fixtures.py):
// tokenization, encoder output and decoder logits within 1e-4, identical greedy and beam ids, scores
// within 1e-4, identical detokenized text.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "models/decoder_state.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

using nlohmann::json;
constexpr double kTolerance = 1e-4;

json golden(const std::string& name) {
  return json::parse(test::read_file(test::fixtures_dir() + "/" + name + "/golden.json"));
}

void require_close(const float* got, const json& expected, size_t n) {
  REQUIRE(expected.size() == n);
  for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == Approx(expected[i].get<double>()).margin(kTolerance));
}

void require_hypotheses(const std::vector<core::Hypothesis>& got, const json& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    REQUIRE(got[k].tokens == expected[k]["ids"].get<std::vector<int32_t>>());
    REQUIRE(got[k].score == Approx(expected[k]["score"].get<double>()).margin(kTolerance));
  }
}

}  // namespace

TEST_CASE("golden parity with the PyTorch reference", "[golden]") {
  for (const std::string name : {"opus", "paper", "gelu-table"}) {
    SECTION(name) {
      const json g = golden(name);
      const pipeline::Translator translator(test::fixtures_dir() + "/" + name + "/model");
      const auto& model = translator.model();
      const auto& desc = model.description();
      const auto sources = g["sources"].get<std::vector<std::vector<int32_t>>>();
      const auto texts = g["sources_text"].get<std::vector<std::string>>();

      // Tokenization: text -> ids (+ EOS) exactly as the reference.
      for (size_t i = 0; i < texts.size(); ++i) {
        auto ids = translator.tokenizer().encode(texts[i]);
        ids.push_back(desc.tokens.eos);
        REQUIRE(ids == sources[i]);
        const pipeline::TranslateOptions o = translator.defaults();
        REQUIRE(translator.max_output_length(static_cast<int>(ids.size()), o) ==
                g["max_lengths"][i].get<int>());
      }

      // Encoder output of one sentence, alone.
      const int s = g["encoder_output"]["sentence"];
      const auto encoded = model.encode({sources[s]});
      require_close(encoded.memory.data(), g["encoder_output"]["data"], encoded.memory.size());

      // Decoder logits, teacher-forced through the incremental step.
      const auto tokens = g["decoder_logits"]["tokens"].get<std::vector<int32_t>>();
      const int vocab = desc.config.tgt_vocab_size;
      models::DecoderState state(model, encoded, 1, static_cast<int>(tokens.size()));
      state.start(1);
      std::vector<float> logits(vocab);
      for (size_t t = 0; t < tokens.size(); ++t) {
        state.step({tokens[t]}, {0}, static_cast<int>(t));
        state.logits(0, 1, logits.data());
        for (int v = 0; v < vocab; ++v) {
          REQUIRE(logits[v] ==
                  Approx(g["decoder_logits"]["data"][t * vocab + v].get<double>()).margin(kTolerance));
        }
      }

      // Greedy: ids and scores for every sentence, batched together.
      pipeline::TranslateOptions greedy = translator.defaults();
      greedy.beam_size = 1;
      const auto greedy_out = translator.translate_ids(sources, greedy);
      for (size_t i = 0; i < sources.size(); ++i)
        require_hypotheses(greedy_out[i], json::array({g["greedy"][i]}));

      // Beam search in each configuration the reference ran.
      for (const auto& b : g["beam"]) {
        pipeline::TranslateOptions o = translator.defaults();
        o.beam_size = b["beam_size"];
        o.length_penalty = b["length_penalty"];
        o.n_best = b["n_best"];
        for (int batch : {1, 3, 32}) {
          o.batch_size = batch;
          const auto out = translator.translate_ids(sources, o);
          for (size_t i = 0; i < sources.size(); ++i) require_hypotheses(out[i], b["results"][i]);
        }
      }

      // Text end to end, each text one sentence as the reference sees it; the whitespace around a text
      // comes back around its translation.
      greedy.split_sentences = false;
      const auto translations = translator.translate(texts, greedy);
      for (size_t i = 0; i < texts.size(); ++i) {
        REQUIRE(translations[i].texts[0] == test::with_source_whitespace(texts[i], g["greedy_text"][i]));
      }
    }
  }
}
