// Directory mode: deterministic split of the input files between n independent runs (--shard i/n).
#pragma once

#include <string>
#include <vector>

#include "cli/file_walker.h"

namespace cli {

// Shard of a relative path: FNV-1a 64 of its bytes, mixed by the splitmix64 finalizer, modulo n.
// A hash rather than the index in the sorted list, so adding or removing a file never moves other
// files between shards (resumed or parallel runs stay consistent). Cost: for few files the shards
// can be uneven. Other tools that split the same way must use exactly this function.
int shard_of(const std::string& relative, int n);

// The files of shard i of n, in input order. Over i = 0..n-1 every file lands in exactly one shard.
std::vector<InputFile> shard(const std::vector<InputFile>& files, int i, int n);

struct ShardSpec {
  int index = 0;  // 0-based
  int count = 1;
};

// Parses "--shard" values "i/n": decimal digits only, n >= 1, 0 <= i < n.
// Throws core::UsageError with a message quoting the value.
ShardSpec parse_shard(const std::string& text);

}  // namespace cli
