#include "cli/cgroup_memory.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace cli {

namespace {

bool lists_memory(const std::string& controllers) {
  std::istringstream names(controllers);
  for (std::string name; std::getline(names, name, ',');) {
    if (name == "memory") return true;
  }
  return false;
}

// "/a/b/c" -> "/a/b" -> "/" -> "": each ancestor's limit applies too.
std::string cgroup_parent(const std::string& path) {
  if (path.empty() || path == "/") return "";
  const size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

}  // namespace

CgroupPlace parse_proc_self_cgroup(const std::string& contents) {
  CgroupPlace v2;
  std::istringstream lines(contents);
  for (std::string line; std::getline(lines, line);) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string id = line.substr(0, first), controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (path.empty() || path[0] != '/') continue;
    if (lists_memory(controllers)) return {false, path};
    if (id == "0" && controllers.empty()) v2 = {true, path};
  }
  return v2;
}

std::optional<uint64_t> parse_cgroup_limit(const std::string& contents) {
  std::string text = contents;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty() || text == "max") return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  if (text.size() > 19) return std::nullopt;  // beyond 2^63: no limit
  const uint64_t value = std::stoull(text);
  if (value >= (uint64_t{1} << 62)) return std::nullopt;  // v1 writes 2^63 rounded down to a page: no limit
  return value;
}

std::optional<uint64_t> cgroup_memory_limit(const FileReader& read) {
  const std::optional<std::string> self = read("/proc/self/cgroup");
  if (!self) return std::nullopt;
  const CgroupPlace place = parse_proc_self_cgroup(*self);
  if (place.path.empty()) return std::nullopt;
  const std::string root = place.v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
  const std::string file = place.v2 ? "/memory.max" : "/memory.limit_in_bytes";
  std::optional<uint64_t> smallest;
  for (std::string dir = place.path; !dir.empty(); dir = cgroup_parent(dir)) {
    const std::optional<std::string> contents = read(root + (dir == "/" ? "" : dir) + file);
    if (!contents) continue;  // the root has no memory.max; a container sees only its own subtree
    const std::optional<uint64_t> limit = parse_cgroup_limit(*contents);
    if (limit && (!smallest || *limit < *smallest)) smallest = limit;
  }
  return smallest;
}

std::optional<uint64_t> own_cgroup_memory_limit() {
  return cgroup_memory_limit([](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
  });
}

}  // namespace cli
