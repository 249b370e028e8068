// serve/: the pieces of `nmt serve` below HTTP (tests/serve/ drives the server itself).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <future>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/threads.h"
#include "serve/api_error.h"
#include "serve/batcher.h"
#include "serve/file_translation.h"
#include "serve/idle_memory.h"
#include "serve/libretranslate_api.h"
#include "serve/model_cache.h"
#include "serve/model_set.h"
#include "serve/source_detection.h"
#include "serve/translation_service.h"
#include "test_support.h"

namespace {

const std::string kModel = std::string(NMT_TEST_DATA) + "/multi30k-en-de";

std::shared_ptr<serve::BatchJob> job_of(const serve::LanguagePair& pair, std::vector<std::string> lines) {
  auto job = std::make_shared<serve::BatchJob>();
  job->pair = pair;
  job->options = pair.options;
  job->options_key = serve::options_key(pair.options);
  job->estimated_tokens = serve::estimate_tokens(lines);
  job->lines = std::move(lines);
  return job;
}

}  // namespace

TEST_CASE("serve join_lines puts LF between translations", "[serve]") {
  CHECK(serve::join_lines({"x", "", "y"}) == "x\n\ny");
}

TEST_CASE("serve format_error: text and html taken, others refused", "[serve]") {
  CHECK(serve::format_error("text").empty());
  CHECK(serve::format_error("html").empty());
  CHECK(serve::format_error("pdf").find("text or html") != std::string::npos);
}

TEST_CASE("serve Batcher: jobs that arrive together share a batch, each gets its own lines", "[serve]") {
  core::set_num_threads(2);
  const serve::ModelSet models({kModel});
  const serve::LanguagePair& pair = models.pairs().at(0);
  const std::vector<std::string> a = {"A dog runs in the park.", "Two men are talking."};
  const std::vector<std::string> b = {"A black cat sleeps on the sofa."};
  std::vector<pipeline::Translation> alone_a = pair.translator->translate(a, pair.options);
  std::vector<pipeline::Translation> alone_b = pair.translator->translate(b, pair.options);
  serve::Batcher batcher(std::chrono::milliseconds(200), 4000);  // a wide window: both arrive within it
  auto fa = batcher.submit(job_of(pair, a));
  auto fb = batcher.submit(job_of(pair, b));
  const std::vector<pipeline::Translation> out_a = fa.get(), out_b = fb.get();
  CHECK(batcher.merged_requests() == 2);
  REQUIRE(out_a.size() == 2);
  REQUIRE(out_b.size() == 1);
  CHECK(out_a[0].texts == alone_a[0].texts);
  CHECK(out_a[1].texts == alone_a[1].texts);
  CHECK(out_b[0].texts == alone_b[0].texts);
}

TEST_CASE("serve Batcher: jobs of other options are not merged", "[serve]") {
  core::set_num_threads(2);
  const serve::ModelSet models({kModel});
  const serve::LanguagePair& pair = models.pairs().at(0);
  serve::Batcher batcher(std::chrono::milliseconds(100), 4000);
  auto greedy = job_of(pair, {"A dog runs."});
  greedy->options.beam_size = 1;
  greedy->options_key = serve::options_key(greedy->options);
  auto fa = batcher.submit(job_of(pair, {"A dog runs."}));
  auto fb = batcher.submit(greedy);
  fa.get();
  fb.get();
  CHECK(batcher.merged_requests() == 0);
}

TEST_CASE("serve detect_language: CLD2's language and its share, nothing for short text", "[serve]") {
  const serve::ModelSet models({kModel});
  const serve::DetectedLanguage de =
      serve::detect_language(models, "Ein Mann mit einem orangefarbenen Hut starrt auf etwas.");
  CHECK(de.language == "de");
  CHECK(de.confidence >= 70);
  CHECK(de.confidence <= 100);
  CHECK(serve::detect_language(models, "A man in an orange hat staring at something.").language == "en");
  const serve::DetectedLanguage short_text = serve::detect_language(models, "Hello world");
  CHECK(short_text.language.empty());
  CHECK(short_text.confidence == 0);
}

TEST_CASE("serve auto_pair: the pair of the detected source, 400 when none serves it", "[serve]") {
  const serve::ModelSet models({kModel});
  serve::DetectedLanguage detected;
  const serve::LanguagePair& en =
      serve::auto_pair(models, "A man in an orange hat staring at something.", "de", detected);
  CHECK(en.translator == models.pairs().at(0).translator);
  CHECK(en.source == "en");
  CHECK(detected.language == "en");
  CHECK(detected.confidence > 0);
  // German is told, but no model translates it into de: refused, naming it, never translated as English.
  CHECK_THROWS_WITH(
      serve::auto_pair(models, "Ein Mann mit einem orangefarbenen Hut starrt auf etwas.", "de", detected),
      Catch::Contains("from German (de)"));
  // Too short to tell: the first pair into de, its source not measured.
  CHECK(serve::auto_pair(models, "Hello", "de", detected).translator == models.pairs().at(0).translator);
  CHECK(detected.language == "en");
  CHECK(detected.confidence == 0);
  CHECK_THROWS_AS(serve::auto_pair(models, "A man in an orange hat staring at something.", "fr", detected),
                  serve::ApiError);
}

TEST_CASE("serve FileStore: tokens of 128 random bits, each file taken once", "[serve]") {
  serve::FileStore store;
  std::set<std::string> tokens;
  for (int i = 0; i < 100; ++i) tokens.insert(store.put("a.de.txt", "x"));
  CHECK(tokens.size() == 100);
  for (const std::string& t : tokens) {
    CHECK(t.size() == 32);
    CHECK(t.find_first_not_of("0123456789abcdef") == std::string::npos);
  }
  const std::string token = store.put("b.de.txt", "y");
  REQUIRE(store.take(token).has_value());
  CHECK_FALSE(store.take(token).has_value());
}

namespace {

// The attack on std::mt19937_64 tokens: 312 consecutive outputs, untempered, are the generator's state, and
// the state gives every later output.
uint64_t untemper(uint64_t y) {
  y ^= y >> 43;
  y ^= (y << 37) & 0xFFF7EEE000000000ULL;
  uint64_t x = y;  // y = x ^ ((x << 17) & mask): each pass fixes 17 more bits of x
  for (int i = 0; i < 4; ++i) x = y ^ ((x << 17) & 0x71D67FFFEDA60000ULL);
  y = x;  // y = x ^ ((x >> 29) & mask)
  for (int i = 0; i < 3; ++i) x = y ^ ((x >> 29) & 0x5555555555555555ULL);
  return x;
}

uint64_t temper(uint64_t y) {
  y ^= (y >> 29) & 0x5555555555555555ULL;
  y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
  y ^= (y << 37) & 0xFFF7EEE000000000ULL;
  return y ^ (y >> 43);
}

// The output after outputs[0..311] of an mt19937_64.
uint64_t predict_next(const std::vector<uint64_t>& outputs) {
  std::vector<uint64_t> x;
  for (size_t i = 0; i < 312; ++i) x.push_back(untemper(outputs[i]));
  const uint64_t y = (x[0] & 0xFFFFFFFF80000000ULL) | (x[1] & 0x7FFFFFFFULL);
  return temper(x[156] ^ (y >> 1) ^ ((y & 1) ? 0xB5026F5AA96619E9ULL : 0));
}

}  // namespace

TEST_CASE("serve FileStore: the next token is not predicted from the 156 before it", "[serve]") {
  std::mt19937_64 weak(12345);  // the predictor works: it foretells the generator tokens once came from
  std::vector<uint64_t> outputs;
  for (int i = 0; i < 312; ++i) outputs.push_back(weak());
  CHECK(predict_next(outputs) == weak());

  serve::FileStore store;
  outputs.clear();
  for (int i = 0; i < 157; ++i) {  // each token two 64-bit words, as 32 hex digits
    const std::string token = store.put("a.de.txt", "x");
    outputs.push_back(std::stoull(token.substr(0, 16), nullptr, 16));
    outputs.push_back(std::stoull(token.substr(16), nullptr, 16));
  }
  CHECK(predict_next(outputs) != outputs[312]);
  int ones = 0;  // the bits are balanced: of 157 x 128, half ones within 4.5 standard deviations (71)
  for (uint64_t w : outputs) ones += __builtin_popcountll(w);
  CHECK(std::abs(ones - 157 * 64) < 4 * 80);
}

TEST_CASE("serve translated_file_name: the target code before the extension", "[serve]") {
  CHECK(serve::translated_file_name("report.docx", "de") == "report.de.docx");
  CHECK(serve::translated_file_name("a.b.txt", "fr") == "a.b.fr.txt");
  CHECK(serve::translated_file_name("README", "de") == "README.de");
  CHECK(serve::translated_file_name(".hidden", "de") == ".hidden.de");
}

TEST_CASE("serve ModelSet: codes in any case, languages with their targets", "[serve]") {
  const serve::ModelSet models({kModel});
  CHECK(models.find("EN", "De") == &models.pairs().at(0));
  CHECK(models.find("AUTO", "DE") == &models.pairs().at(0));
  CHECK(models.find("de", "en") == nullptr);
  CHECK(models.languages_json() == nlohmann::json::parse(
                                       R"([{"code":"en","name":"English","targets":["de"]},
                                           {"code":"de","name":"German","targets":[]}])"));
}

TEST_CASE("serve ModelSet: two models of one pair are refused", "[serve]") {
  CHECK_THROWS_WITH(serve::ModelSet({kModel, kModel}), Catch::Contains("both translate en to de") &&
                                                           Catch::Contains("one model per language pair"));
  CHECK_THROWS_AS(serve::ModelSet({kModel, kModel}), core::UsageError);
}

TEST_CASE("serve IdleMemory: trims when the last request ends after enough bytes, not before", "[serve]") {
  serve::IdleMemory memory;
  {
    serve::IdleMemory::Request small(memory);
    small.count(100);
  }
  CHECK(memory.trims() == 0);
  {
    serve::IdleMemory::Request large(memory);
    {
      serve::IdleMemory::Request other(memory);
      other.count(serve::kTrimAfterBytes);
    }
    CHECK(memory.trims() == 0);  // one still in flight
  }
  CHECK(memory.trims() == 1);
  for (int i = 0; i < 2; ++i) {
    serve::IdleMemory::Request some(memory);
    some.count(serve::kTrimAfterBytes / 2);
  }
  CHECK(memory.trims() == 2);  // small requests add up
}

TEST_CASE("the model cache unloads a model held past the budget once its request lets it go", "[serve]") {
  // A budget of one byte: every model is over it, so each goes as soon as no request holds it.
  const std::string opus = test::fixtures_dir() + "/opus/model";
  const std::string paper = test::fixtures_dir() + "/paper/model";
  const auto route = [](const std::string& dir) {
    return front::ModelRoute{{models::StoredModel{dir, dir, "", "", false}}};
  };
  const auto bytes_of = [&](const std::string& dir) {
    serve::ModelCache unbounded(UINT64_MAX);
    const serve::ModelCache::Loaded loaded = unbounded.use(0, route(dir));
    return unbounded.loaded_bytes();
  };
  const uint64_t opus_bytes = bytes_of(opus), paper_bytes = bytes_of(paper);
  REQUIRE(opus_bytes > 0);
  REQUIRE(paper_bytes > 0);
  serve::ModelCache cache(1);
  serve::ModelCache::Loaded first = cache.use(0, route(opus));
  serve::ModelCache::Loaded second = cache.use(1, route(paper));
  CHECK(cache.loaded_bytes() == opus_bytes + paper_bytes);  // both held: over the budget meanwhile
  first.lease.reset();
  CHECK(cache.loaded_bytes() == paper_bytes);
  second.lease.reset();
  CHECK(cache.loaded_bytes() == 0);
}
