// Hugging Face hub downloads by repository id: `huggingface-cli download ORG/NAME` leaves
// CACHE/models--ORG--NAME/refs/REV (a commit hash) and snapshots/HASH/FILE, each file a symlink into
// ../../blobs/. The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
#pragma once

#include <string>

namespace models {

// True for ORG/NAME or ORG/NAME@REV: letters, digits, '.', '_' and '-', neither part "." or "..".
bool is_hf_repo_id(const std::string& spec);

// The hub cache directory the environment names (see above); "" when neither variable nor HOME is set.
std::string hf_hub_cache_dir();

// The snapshot directory of `spec` (ORG/NAME, revision main, or ORG/NAME@REV: a branch or tag under refs/,
// or a commit hash under snapshots/). Throws ModelError, one line saying where it looked, when the cache
// does not hold it.
std::string find_hf_snapshot(const std::string& spec);

}  // namespace models
