// --max-memory: the size syntax, the worst-case batch estimate, and the batch size reduced (one warning)
// or the run refused (exit 64, one line) before anything is translated.
#include <catch2/catch.hpp>

#include "cli/memory_limit.h"
#include "core/error.h"
#include "front/translate_flags.h"
#include "pipeline/batch_memory.h"
#include "pipeline/translator.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;

std::string model_dir() { return test::fixtures_dir() + "/opus/model"; }

pipeline::BatchShape shape(int sentences, int beam) {
  pipeline::BatchShape s;
  s.sentences = sentences;
  s.beam = beam;
  s.source_tokens = 50;
  s.output_tokens = 60;
  return s;
}

}  // namespace

TEST_CASE("max-memory: sizes in binary units", "[memory]") {
  CHECK(cli::parse_memory_size("1.5G") == (uint64_t{3} << 29));
  CHECK(cli::parse_memory_size("800M") == 800ull << 20);
  CHECK(cli::parse_memory_size("2GB") == 2ull << 30);
  CHECK(cli::parse_memory_size("3gib") == 3ull << 30);
  CHECK(cli::parse_memory_size("4096k") == 4ull << 20);
  CHECK(cli::parse_memory_size("2097152") == 2ull << 20);
  for (const char* bad : {"", "12Q", "abc", "G", "0.5M", "-1G", "nan", "inf", "1e30T"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(cli::parse_memory_size(bad), core::UsageError);
  }
  CHECK_THROWS_WITH(cli::parse_memory_size("12Q"), Contains("--max-memory") && Contains("'12Q'"));
}

TEST_CASE("max-memory: the estimate grows with batch, beam and length, the fit is the largest that fits",
          "[memory]") {
  models::ModelConfig c;
  c.d_model = 512;
  c.n_heads = 8;
  c.encoder_layers = c.decoder_layers = 6;
  c.ffn_dim = 2048;
  c.src_vocab_size = c.tgt_vocab_size = 32000;
  CHECK(pipeline::batch_memory_bytes(c, shape(2, 4)) > pipeline::batch_memory_bytes(c, shape(1, 4)));
  CHECK(pipeline::batch_memory_bytes(c, shape(1, 8)) > pipeline::batch_memory_bytes(c, shape(1, 4)));
  pipeline::BatchShape longer = shape(1, 4);
  longer.output_tokens *= 2;
  CHECK(pipeline::batch_memory_bytes(c, longer) > pipeline::batch_memory_bytes(c, shape(1, 4)));
  // The self-attention caches alone: 2 (K, V) x layers x rows x steps x d floats.
  CHECK(pipeline::batch_memory_bytes(c, shape(3, 4)) > 2ull * 6 * 12 * 60 * 512 * 4);

  const uint64_t five = pipeline::batch_memory_bytes(c, shape(5, 4));
  CHECK(pipeline::sentences_within(c, shape(4096, 4), 1, five) == 5);
  CHECK(pipeline::sentences_within(c, shape(4096, 4), 1, five - 1) == 4);
  CHECK(pipeline::sentences_within(c, shape(4096, 4), 2, 2 * five) == 5);
  CHECK(pipeline::sentences_within(c, shape(3, 4), 1, five) == 3);  // never more than asked
  CHECK(pipeline::sentences_within(c, shape(8, 4), 1, pipeline::batch_memory_bytes(c, shape(1, 4)) - 1) == 0);
}

TEST_CASE("max-memory: the batch size is kept, reduced with a warning, or the run refused", "[memory]") {
  const pipeline::Translator translator(model_dir());
  front::TranslateFlags flags;
  flags.set("beam_size", int64_t{128});
  flags.set("batch_size", int64_t{4096});
  const pipeline::TranslateOptions o = front::resolve_translate_flags(flags, translator);
  cli::MemoryBudget budget;
  budget.max_memory = uint64_t{1} << 50;
  cli::BatchFit fit = cli::fit_batch_to_memory(translator, o, budget, 2);
  CHECK(fit.batch_size == 4096);
  CHECK(fit.warning.empty());

  budget.max_memory = uint64_t{1} << 30;
  fit = cli::fit_batch_to_memory(translator, o, budget, 2);
  CHECK(fit.batch_size >= 1);
  CHECK(fit.batch_size < 4096);
  CHECK_THAT(fit.warning, Contains("--batch-size 4096 reduced to " + std::to_string(fit.batch_size)) &&
                              Contains("--max-memory 1.0 GiB") && Contains("beam 128"));
  // The batch it picks fits, one per thread; one more would not.
  pipeline::BatchShape s;
  s.sentences = fit.batch_size;
  s.beam = 128;
  s.source_tokens = o.max_sentence_tokens + 2;
  s.output_tokens = translator.max_output_length(s.source_tokens, o);
  CHECK(2 * pipeline::batch_memory_bytes(translator.model().config(), s) <= budget.for_batches());
  ++s.sentences;
  CHECK(2 * pipeline::batch_memory_bytes(translator.model().config(), s) > budget.for_batches());

  // Under an address-space limit, three quarters of what is left counts.
  budget.address_space_left = uint64_t{1} << 20;
  CHECK_THROWS_WITH(cli::fit_batch_to_memory(translator, o, budget, 2),
                    Contains("address-space limit (ulimit -v) is too small for beam 128"));
  budget.address_space_left = UINT64_MAX;
  budget.max_memory = uint64_t{4} << 20;
  budget.resident = uint64_t{4} << 20;  // the model alone fills it
  CHECK_THROWS_AS(cli::fit_batch_to_memory(translator, o, budget, 1), core::UsageError);
}

TEST_CASE("max-memory end to end: same translations at a reduced batch, refusal exits 64", "[memory][e2e]") {
  const std::string nmt = "'" + test::nmt_binary() + "' translate -m '" + model_dir() + "' --threads 1";
  std::string input;
  for (int i = 0; i < 40; ++i) input += "A dog runs " + std::to_string(i) + " times.\n";
  const auto plain = test::run(nmt + " -b 64 --batch-size 4096 --max-memory 64G", input);
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.err.empty());
  const auto reduced = test::run(nmt + " -b 64 --batch-size 4096 --max-memory 300M", input);
  REQUIRE(reduced.exit_code == 0);
  CHECK(reduced.out == plain.out);
  CHECK_THAT(reduced.err, Contains("nmt: warning: --batch-size 4096 reduced to "));
  CHECK(std::count(reduced.err.begin(), reduced.err.end(), '\n') == 1);
  const auto refused = test::run(nmt + " -b 128 --max-memory 2M", input);
  CHECK(refused.exit_code == 64);
  CHECK(refused.out.empty());
  CHECK_THAT(refused.err, Contains("--max-memory 2 MiB is too small for beam 128"));
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  const auto bad = test::run(nmt + " --max-memory lots", input);
  CHECK(bad.exit_code == 64);
}
