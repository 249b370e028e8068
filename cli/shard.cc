#include "cli/shard.h"

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "cli/io_error.h"
#include "core/error.h"

namespace cli {

int shard_of(const std::string& relative, int n) {
  if (n < 1) throw std::invalid_argument("shard_of: n must be >= 1");
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : relative) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64 finalizer: FNV's low bits are weak
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<int>(h % static_cast<std::uint64_t>(n));
}

std::vector<InputFile> shard(const std::vector<InputFile>& files, int i, int n) {
  if (n < 1 || i < 0 || i >= n) throw std::invalid_argument("shard: need 0 <= i < n");
  std::vector<InputFile> out;
  for (const InputFile& f : files) {
    if (shard_of(f.relative, n) == i) out.push_back(f);
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
