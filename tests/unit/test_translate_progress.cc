// Translator::translate counts every finished batch into TranslateOptions::progress (what the progress
// display reads while a read window is translated).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "pipeline/translator.h"
#include "test_support.h"

TEST_CASE("translate counts each batch's sentences and tokens into its progress", "[translator][progress]") {
  const pipeline::Translator translator(test::fixtures_dir() + "/opus/model");
  std::vector<std::string> lines;
  std::vector<pipeline::LineControls> controls;
  for (int i = 0; i < 30; ++i) {
    lines.push_back(i % 7 == 3 ? std::string() : "the man number " + std::to_string(i));
    pipeline::LineControls c;
    if (i % 2 == 1) c.beam_size = 2;  // two beam sizes: two runs of batches, one count
    controls.push_back(c);
  }
  pipeline::TranslateProgress progress;
  pipeline::TranslateOptions o = translator.defaults();
  o.batch_size = 4;
  o.progress = &progress;
  const std::vector<pipeline::Translation> out = translator.translate(lines, o, nullptr, &controls);
  REQUIRE(out.size() == lines.size());
  CHECK(progress.total_tokens > 0);
  CHECK(progress.done_tokens == progress.total_tokens);
  CHECK(progress.done_sentences == 26);  // the blank lines run no model
  progress.reset();
  o.progress = nullptr;  // no counter: nothing counted
  translator.translate(lines, o);
  CHECK(progress.total_tokens == 0);
  CHECK(progress.done_sentences == 0);
}
