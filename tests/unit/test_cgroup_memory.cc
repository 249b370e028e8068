// The cgroup memory limit and the default --max-memory, from fixture file contents (not the live system).
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>

#include "cli/cgroup_memory.h"
#include "cli/memory_limit.h"

namespace {

cli::FileReader files(const std::map<std::string, std::string>& contents) {
  return [contents](const std::string& path) -> std::optional<std::string> {
    const auto it = contents.find(path);
    if (it == contents.end()) return std::nullopt;
    return it->second;
  };
}

constexpr uint64_t kMiB = uint64_t{1} << 20;

}  // namespace

TEST_CASE("/proc/self/cgroup: v1 memory line, v2 unified line", "[cli][memory]") {
  const cli::CgroupPlace v2 = cli::parse_proc_self_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n");
  CHECK(v2.v2);
  CHECK(v2.path == "/user.slice/user-1000.slice/session-3.scope");
  const cli::CgroupPlace v1 = cli::parse_proc_self_cgroup(
      "12:cpu,cpuacct:/a\n4:memory:/docker/abc\n1:name=systemd:/docker/abc\n0::/docker/abc\n");
  CHECK_FALSE(v1.v2);
  CHECK(v1.path == "/docker/abc");
  CHECK(cli::parse_proc_self_cgroup("5:blkio,memory:/x\n").path == "/x");
  CHECK(cli::parse_proc_self_cgroup("").path.empty());
  CHECK(cli::parse_proc_self_cgroup("garbage\n3:cpu:/y\n").path.empty());
}

TEST_CASE("memory.max and memory.limit_in_bytes values", "[cli][memory]") {
  CHECK(cli::parse_cgroup_limit("max\n") == std::nullopt);
  CHECK(cli::parse_cgroup_limit("536870912\n") == std::optional<uint64_t>(512 * kMiB));
  CHECK(cli::parse_cgroup_limit("9223372036854771712\n") == std::nullopt);  // v1: unlimited
  CHECK(cli::parse_cgroup_limit("99999999999999999999999\n") == std::nullopt);
  CHECK(cli::parse_cgroup_limit("") == std::nullopt);
  CHECK(cli::parse_cgroup_limit("-1") == std::nullopt);
  CHECK(cli::parse_cgroup_limit("12ab") == std::nullopt);
}

TEST_CASE("cgroup limit: the smallest of the cgroup and its ancestors", "[cli][memory]") {
  // v2: the session has no limit of its own; its parent slice has 1 GiB, the grandparent 2 GiB.
  CHECK(cli::cgroup_memory_limit(files({{"/proc/self/cgroup", "0::/user.slice/u.slice/s.scope\n"},
                                        {"/sys/fs/cgroup/user.slice/u.slice/s.scope/memory.max", "max\n"},
                                        {"/sys/fs/cgroup/user.slice/u.slice/memory.max", "1073741824\n"},
                                        {"/sys/fs/cgroup/user.slice/memory.max", "2147483648\n"}})) ==
        std::optional<uint64_t>(1024 * kMiB));
  // v1 (hybrid: the memory controller is on v1), as in a container.
  CHECK(cli::cgroup_memory_limit(files(
            {{"/proc/self/cgroup", "4:memory:/docker/abc\n0::/docker/abc\n"},
             {"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "268435456\n"},
             {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"},
             {"/sys/fs/cgroup/docker/abc/memory.max", "1048576\n"}})) == std::optional<uint64_t>(256 * kMiB));
  // A namespaced container sees its own cgroup at the mount's root.
  CHECK(cli::cgroup_memory_limit(
            files({{"/proc/self/cgroup", "0::/\n"}, {"/sys/fs/cgroup/memory.max", "300000000\n"}})) ==
        std::optional<uint64_t>(300000000));
  CHECK(cli::cgroup_memory_limit(files(
            {{"/proc/self/cgroup", "0::/a\n"}, {"/sys/fs/cgroup/a/memory.max", "max\n"}})) == std::nullopt);
  CHECK(cli::cgroup_memory_limit(files({})) == std::nullopt);
}

TEST_CASE("default --max-memory: a quarter of RAM, at most three quarters of a process limit",
          "[cli][memory]") {
  CHECK(cli::default_max_memory(16384 * kMiB, std::nullopt) == 4096 * kMiB);
  CHECK(cli::default_max_memory(16384 * kMiB, 512 * kMiB) == 384 * kMiB);
  CHECK(cli::default_max_memory(1024 * kMiB, 64 * 1024 * kMiB) == 256 * kMiB);
}
