// What a batch run's flags add up to (docs/cli.md "Quality report"): how many lines carry each flag and
// the worst flagged lines by confidence, as a summary on stderr and, with --report FILE, as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/io/output_target.h"
#include "pipeline/translation.h"

namespace cli {

class QualityReport {
 public:
  // The worst lines kept: enough to start reading, few enough for a terminal.
  static constexpr size_t kWorstLines = 10;

  // One translated line at `position` ("FILE:LINE"): its best hypothesis's flags and confidence (what
  // --output-format jsonl prints at the top level). A piece of a long line (`continues`) adds its flags
  // to the line's but is not another line.
  void add(const std::string& position, const pipeline::Translation& t, bool continues = false);

  uint64_t lines() const { return lines_; }

  // {"lines": N, "flagged_lines": M, "flags": {"loop": 2, ...}, "worst": [{"line": "a.txt:3",
  // "confidence": 0.12, "flags": ["loop"]}, ...]}: worst = the flagged lines of lowest confidence, first.
  nlohmann::ordered_json to_json() const;
  // "nmt: 120 line(s), 7 flagged: loop 2, numbers 5\n  worst: a.txt:3 (confidence 0.12: loop)\n...".
  std::string summary() const;
  // to_json(), indented, into `target`, committed (throws IoError).
  void write(OutputTarget& target) const;

 private:
  struct Entry {
    std::string position;
    float confidence;
    std::vector<std::string> flags;
  };
  uint64_t lines_ = 0, flagged_lines_ = 0;
  std::map<std::string, uint64_t> counts_;  // per flag code: lines that carry it
  std::vector<Entry> worst_;                // flagged, lowest confidence first, at most kWorstLines
};

}  // namespace cli
