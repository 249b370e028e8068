#include "cli/io/quality_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace cli {
namespace {

double rounded(float confidence) { return std::round(static_cast<double>(confidence) * 1e4) / 1e4; }

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

void QualityReport::add(const std::string& position, const pipeline::Translation& t, bool continues) {
  if (t.flags.empty() || t.confidences.empty()) return;
  const std::vector<std::string>& flags = t.flags.front();
  if (!continues) {
    ++lines_;
    if (!flags.empty()) ++flagged_lines_;
    for (const std::string& flag : flags) ++counts_[flag];
  }
  if (flags.empty()) return;
  const Entry entry{position, t.confidences.front(), flags};
  const auto by_confidence = [](const Entry& a, const Entry& b) { return a.confidence < b.confidence; };
  worst_.insert(std::upper_bound(worst_.begin(), worst_.end(), entry, by_confidence), entry);
  if (worst_.size() > kWorstLines) worst_.pop_back();
}

nlohmann::ordered_json QualityReport::to_json() const {
  nlohmann::ordered_json j;
  j["lines"] = lines_;
  j["flagged_lines"] = flagged_lines_;
  j["flags"] = nlohmann::ordered_json::object();
  for (const auto& [flag, count] : counts_) j["flags"][flag] = count;
  j["worst"] = nlohmann::ordered_json::array();
  for (const Entry& e : worst_)
    j["worst"].push_back({{"line", e.position}, {"confidence", rounded(e.confidence)}, {"flags", e.flags}});
  return j;
}

std::string QualityReport::summary() const {
  std::string text =
      "nmt: " + std::to_string(lines_) + " line(s), " + std::to_string(flagged_lines_) + " flagged";
  std::vector<std::string> counts;
  for (const auto& [flag, count] : counts_) counts.push_back(flag + " " + std::to_string(count));
  if (!counts.empty()) text += ": " + joined(counts);
  text += "\n";
  char confidence[32];
  for (const Entry& e : worst_) {
    std::snprintf(confidence, sizeof confidence, "%.2f", e.confidence);
    text += "  worst: " + e.position + " (confidence " + confidence +
            (e.flags.empty() ? "" : ": " + joined(e.flags)) + ")\n";
  }
  return text;
}

void QualityReport::write(OutputTarget& target) const {
  std::istringstream lines(to_json().dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  for (std::string line; std::getline(lines, line);) target.write_line(line, LineEnding::kLf);
  target.commit();
}

}  // namespace cli
