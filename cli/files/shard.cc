#include "cli/files/shard.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "cli/io/io_error.h"
#include "core/error.h"

namespace cli {

std::vector<int> assign_shards(const std::vector<InputFile>& files, int n) {
  if (n < 1) throw std::invalid_argument("assign_shards: n must be >= 1");
  std::vector<std::size_t> order(files.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (files[a].size != files[b].size) return files[a].size > files[b].size;
    return files[a].relative < files[b].relative;
  });
  // Every file weighs at least 1, so empty files spread out too.
  std::vector<std::uint64_t> load(static_cast<std::size_t>(n), 0);
  std::vector<int> assignment(files.size(), 0);
  for (std::size_t f : order) {
    const auto lightest = std::min_element(load.begin(), load.end());
    *lightest += std::max<std::uint64_t>(files[f].size, 1);
    assignment[f] = static_cast<int>(lightest - load.begin());
  }
  return assignment;
}

std::vector<InputFile> shard(const std::vector<InputFile>& files, int i, int n) {
  if (n < 1 || i < 0 || i >= n) throw std::invalid_argument("shard: need 0 <= i < n");
  const std::vector<int> assignment = assign_shards(files, n);
  std::vector<InputFile> out;
  for (std::size_t f = 0; f < files.size(); ++f) {
    if (assignment[f] == i) out.push_back(files[f]);
  }
  return out;
}

ShardSpec parse_shard(const std::string& text) {
  auto bad = [&](std::string_view why) -> core::UsageError {
    return core::UsageError("--shard '" + printable_path(text) + "': " + std::string(why) +
                            " (expected i/n with 0 <= i < n, e.g. 0/4)");
  };
  std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad("missing '/'");
  auto parse = [&](std::string_view digits) {
    if (digits.empty() || digits.size() > 9) throw bad("not a number");
    int value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') throw bad("not a number");
      value = value * 10 + (c - '0');
    }
    return value;
  };
  std::string_view view = text;
  ShardSpec spec{parse(view.substr(0, slash)), parse(view.substr(slash + 1))};
  if (spec.count < 1) throw bad("n must be at least 1");
  if (spec.index >= spec.count) throw bad("i must be less than n (shards are numbered from 0)");
  return spec;
}

}  // namespace cli
