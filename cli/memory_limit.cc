#include "cli/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

#include "cli/cgroup_memory.h"
#include "core/error.h"
#include "core/printable.h"
#include "pipeline/batch_memory.h"

namespace cli {

uint64_t parse_memory_size(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return core::UsageError("--max-memory: " + why + ", got '" + core::printable(text) + "'");
  };
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad("expected a size such as 1.5G, 800M or 2147483648");
  }
  std::string unit = text.substr(used);
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  for (const auto& [name, shift] : {std::pair<const char*, int>{"K", 10}, {"M", 20}, {"G", 30}, {"T", 40}}) {
    const std::string n = name;
    if (unit == n || unit == n + "B" || unit == n + "IB") scale = std::ldexp(1.0, shift);
  }
  if (scale == 0) throw bad("unknown unit (use K, M, G or T)");
  const double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes < (1 << 20)) throw bad("expected at least 1M");
  if (bytes > 1e18) throw bad("too large");
  return static_cast<uint64_t>(bytes);
}

std::string format_memory_size(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else {
    std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  }
  return text;
}

uint64_t default_max_memory(uint64_t physical, std::optional<uint64_t> process_limit) {
  const uint64_t by_ram = physical / 4;
  return process_limit ? std::min(by_ram, *process_limit / 4 * 3) : by_ram;
}

uint64_t default_max_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  const uint64_t physical =
      pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * page_size : uint64_t{4} << 30;
  return std::max(default_max_memory(physical, process_memory_limit()), uint64_t{1} << 20);
}

std::optional<uint64_t> process_memory_limit() {
  std::optional<uint64_t> limit = own_cgroup_memory_limit();
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t address_space = static_cast<uint64_t>(as.rlim_cur);
    if (!limit || address_space < *limit) limit = address_space;
  }
  return limit;
}

std::string not_enough_memory_message() {
  const std::optional<uint64_t> limit = process_memory_limit();
  if (!limit) return "not enough memory";
  return "not enough memory (limit " + std::to_string(*limit >> 20) + " MB)";
}

uint64_t MemoryBudget::for_batches() const {
  const uint64_t by_limit = max_memory > resident ? max_memory - resident : 0;
  return std::min(by_limit, usable_address_space());
}

MemoryBudget current_budget(uint64_t max_memory) {
  MemoryBudget budget;
  budget.max_memory = max_memory;
  std::ifstream statm("/proc/self/statm");
  uint64_t mapped_pages = 0, resident_pages = 0;
  if (!(statm >> mapped_pages >> resident_pages)) return budget;
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGE_SIZE));
  budget.resident = resident_pages * page;
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t limit = static_cast<uint64_t>(as.rlim_cur), mapped = mapped_pages * page;
    budget.address_space_left = limit > mapped ? limit - mapped : 0;
  }
  return budget;
}

BatchFit fit_batch_to_memory(const pipeline::Translator& translator, const pipeline::TranslateOptions& o,
                             const MemoryBudget& budget, int threads) {
  pipeline::BatchShape shape;
  shape.sentences = o.batch_size;
  shape.beam = o.beam_size;
  shape.source_tokens = o.max_sentence_tokens + 2;  // the EOS and a >>lang<< tag beyond the cut
  shape.output_tokens = translator.max_output_length(shape.source_tokens, o);
  const models::ModelConfig& config = translator.model().config();
  BatchFit fit;
  fit.batch_size = pipeline::sentences_within(config, shape, threads, budget.for_batches());
  const std::string limit = budget.usable_address_space() < budget.max_memory
                                ? "the address-space limit (ulimit -v)"
                                : "--max-memory " + format_memory_size(budget.max_memory);
  const std::string threads_text = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  if (fit.batch_size == 0) {
    pipeline::BatchShape one = shape;
    one.sentences = 1;
    throw core::UsageError(limit + " is too small for beam " + std::to_string(o.beam_size) +
                           ": one sentence per thread (" + threads_text + ") can take up to " +
                           format_memory_size(pipeline::batch_memory_bytes(config, one) * threads) +
                           " beside the model; lower --beam-size, --max-length or --threads");
  }
  if (fit.batch_size < o.batch_size) {
    fit.warning = "--batch-size " + std::to_string(o.batch_size) + " reduced to " +
                  std::to_string(fit.batch_size) + " to stay within " + limit + " at beam " +
                  std::to_string(o.beam_size) + " on " + threads_text;
  }
  return fit;
}

}  // namespace cli
