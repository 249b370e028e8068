// The memory limit of this process's cgroup (v2 memory.max, v1 memory.limit_in_bytes), for the default
// --max-memory and for "not enough memory (limit N MB)".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace cli {

// Where this process's memory controller is, from the contents of /proc/self/cgroup: a v1 line
// "N:...memory...:/path" wins (hybrid hierarchies), else the v2 line "0::/path".
struct CgroupPlace {
  bool v2 = false;
  std::string path;  // "/user.slice/..." as the file says; empty: no memory controller found
};
CgroupPlace parse_proc_self_cgroup(const std::string& contents);

// The contents of memory.max or memory.limit_in_bytes as a limit: nullopt for "max", for v1's "no limit"
// (a value near 2^63) and for anything unreadable.
std::optional<uint64_t> parse_cgroup_limit(const std::string& contents);

// Reads a file's contents; nullopt when it cannot be read.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

// The smallest limit of the process's cgroup and its ancestors up to the root, read through `read`
// (/proc/self/cgroup, then /sys/fs/cgroup/...); nullopt when there is none.
std::optional<uint64_t> cgroup_memory_limit(const FileReader& read);

// The same, for this process on this machine.
std::optional<uint64_t> own_cgroup_memory_limit();

}  // namespace cli
