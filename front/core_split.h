// How `--replicas` and `--threads` share the cores: translators on one copy of the weights, each with its
// own team of threads (pipeline/translate_batches.cc). `nmt translate` and `nmt serve` resolve them alike.
#pragma once

namespace front {

// Cores per replica `nmt serve` gives when neither flag is set: one, as replicas of one thread match a team
// on a quiet machine and lose far less beside another busy process (bench/latest/scaling-*.md,
// contention-*.md); a lone request gets every thread whatever the split (docs/speed.md, Replicas).
constexpr int kServeCoresPerReplica = 1;

struct CoreSplit {
  int replicas = 1;
  int threads = 1;  // per replica
};

// replicas 0: one replica of `threads` when given, else one replica per kServeCoresPerReplica cores (at
// least one), the cores divided among them; threads 0: the cores divided among the replicas (at least 1).
// Throws core::UsageError, one line, for more replicas than cores.
CoreSplit split_cores(int replicas, int threads, int cores);

}  // namespace front
