// libFuzzer target: arbitrary bytes as one `--input-format jsonl` line through cli::parse_jsonl_request on
// the fixture model. A request is either valid or carries an error, never both; a malformed one is empty.
// Run with -rss_limit_mb (tests/fuzz/run.sh) so a parse that amplifies its input is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "front/jsonl_input.h"
#include "pipeline/translator.h"

namespace {

const pipeline::Translator& translator() {
  static const pipeline::Translator t(std::string(NMT_FIXTURES_DIR) + "/opus/model");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const pipeline::Translator& t = translator();
  static const pipeline::TranslateOptions options = t.defaults();
  const std::string line(reinterpret_cast<const char*>(data), size);
  const front::JsonlRequest r = front::parse_jsonl_request(line, t, options);
  if (!r.error.empty() && (!r.text.empty() || !r.controls.prefix.empty())) std::abort();
  if (r.error.empty() && size > front::kMaxJsonlLineBytes) std::abort();
  return 0;
}
