// Directory mode: deterministic split of the input files between n independent runs (--shard i/n).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/files/file_walker.h"

namespace cli {

// Shard of every file, balancing bytes: files in order of size (largest first, ties by relative path)
// each go to the shard with the fewest bytes so far (ties: the lowest index). It depends only on the
// relative paths and sizes, so every machine that lists the same tree computes the same split without
// talking to the others; over i = 0..n-1 every file lands in exactly one shard.
std::vector<int> assign_shards(const std::vector<InputFile>& files, int n);

// The files of shard i of n, in input order.
std::vector<InputFile> shard(const std::vector<InputFile>& files, int i, int n);

struct ShardSpec {
  int index = 0;  // 0-based
  int count = 1;
};

// Parses "--shard" values "i/n": decimal digits only, n >= 1, 0 <= i < n.
// Throws core::UsageError with a message quoting the value.
ShardSpec parse_shard(const std::string& text);

}  // namespace cli
