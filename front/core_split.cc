#include "front/core_split.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace front {

CoreSplit split_cores(int replicas, int threads, int cores) {
  cores = std::max(1, cores);
  if (replicas > cores) {
    throw core::UsageError("--replicas " + std::to_string(replicas) + " is more than this machine's " +
                           std::to_string(cores) + " cores: each replica needs one at least");
  }
  CoreSplit split;
  if (replicas == 0 && threads > 0) {
    split.threads = threads;  // --threads alone: one translator with that budget
  } else if (replicas == 0) {
    split.replicas = std::max(1, cores / kServeCoresPerReplica);
    split.threads = cores / split.replicas;
  } else {
    split.replicas = replicas;
    split.threads = threads > 0 ? threads : std::max(1, cores / replicas);
  }
  return split;
}

}  // namespace front
