// Parity with the PyTorch reference's golden.json (tools/reference.py; fixtures from tools/make_fixtures.py):
// tokenization and length limits, one sentence's encoder output and teacher-forced decoder logits within
// kTolerance, greedy and beam ids, their scores within kTolerance, and the detokenized text. The golden
// test checks the fixture models with it, the converter tests the models they convert.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/translator.h"
#include "teacher_forced.h"
#include "test_support.h"

namespace golden {

using nlohmann::json;
constexpr double kTolerance = 1e-4;

inline json read(const std::string& path) { return json::parse(test::read_file(path)); }

inline void require_hypotheses(const std::vector<core::Hypothesis>& got, const json& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    REQUIRE(got[k].tokens == expected[k]["ids"].get<std::vector<int32_t>>());
    REQUIRE(got[k].score == Approx(expected[k]["score"].get<double>()).margin(kTolerance));
  }
}

struct ParityOptions {
  pipeline::TranslateOptions limits;  // the options every search starts from (its length limits)
  int skip_column = -1;               // a logit column not compared (-1: none)
  std::vector<int> beam_batch_sizes;  // each beam configuration runs at these batch sizes (empty: limits')
};

// Everything `g` records, against `translator`'s model.
inline void require_parity(const pipeline::Translator& translator, const json& g, const ParityOptions& p) {
  const auto& model = translator.model();
  const auto& desc = model.description();
  const auto sources = g["sources"].get<std::vector<std::vector<int32_t>>>();
  const auto texts = g["sources_text"].get<std::vector<std::string>>();

  // Tokenization: text -> ids (+ EOS) exactly as the reference, and the same length limits.
  for (size_t i = 0; i < texts.size(); ++i) {
    auto ids = translator.tokenizer().encode(texts[i]);
    ids.push_back(desc.tokens.eos);
    REQUIRE(ids == sources[i]);
    REQUIRE(translator.max_output_length(static_cast<int>(ids.size()), p.limits) ==
            g["max_lengths"][i].get<int>());
  }

  // Encoder output of one sentence, alone.
  const int s = g["encoder_output"]["sentence"];
  const auto encoded = model.encode({sources[s]});
  REQUIRE(encoded.memory.size() == g["encoder_output"]["data"].size());
  for (size_t i = 0; i < encoded.memory.size(); ++i) {
    REQUIRE(encoded.memory[i] == Approx(g["encoder_output"]["data"][i].get<double>()).margin(kTolerance));
  }

  // Decoder logits, teacher-forced through the incremental step.
  const auto tokens = g["decoder_logits"]["tokens"].get<std::vector<int32_t>>();
  const auto logits = test::teacher_forced_logits(model, encoded, 0, tokens);
  const int vocab = desc.config.tgt_vocab_size;
  REQUIRE(logits.size() == g["decoder_logits"]["data"].size());
  for (size_t i = 0; i < logits.size(); ++i) {
    if (static_cast<int>(i % vocab) == p.skip_column) continue;
    REQUIRE(logits[i] == Approx(g["decoder_logits"]["data"][i].get<double>()).margin(kTolerance));
  }

  // Greedy: ids and scores for every sentence, batched together.
  pipeline::TranslateOptions greedy = p.limits;
  greedy.beam_size = 1;
  greedy.length_penalty = g["search"]["length_penalty"];
  const auto greedy_out = translator.translate_ids(sources, greedy);
  for (size_t i = 0; i < sources.size(); ++i)
    require_hypotheses(greedy_out[i], json::array({g["greedy"][i]}));

  // Beam search in each configuration the reference ran.
  for (const auto& b : g["beam"]) {
    pipeline::TranslateOptions o = p.limits;
    o.beam_size = b["beam_size"];
    o.length_penalty = b["length_penalty"];
    o.n_best = b["n_best"];
    const std::vector<int> batches =
        p.beam_batch_sizes.empty() ? std::vector<int>{o.batch_size} : p.beam_batch_sizes;
    for (int batch : batches) {
      CAPTURE(b["beam_size"].get<int>(), batch);
      o.batch_size = batch;
      const auto out = translator.translate_ids(sources, o);
      for (size_t i = 0; i < sources.size(); ++i) require_hypotheses(out[i], b["results"][i]);
    }
  }

  // Text end to end, each text one sentence as the reference sees it; the whitespace around a text comes
  // back around its translation.
  greedy.split_sentences = false;
  const auto translations = translator.translate(texts, greedy);
  for (size_t i = 0; i < texts.size(); ++i) {
    REQUIRE(translations[i].texts[0] == test::with_source_whitespace(texts[i], g["greedy_text"][i]));
  }
}

}  // namespace golden
