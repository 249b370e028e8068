#include "core/temp_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>

namespace core {
namespace {

// Keeps ".BASE.tmp.HHHHHHHH.PID.XXXXXX" under NAME_MAX (255) even for a 255-byte BASE.
constexpr std::size_t kMaxTempBase = 200;
constexpr std::string_view kTempMarker = ".tmp.";
constexpr int kSlots = 64;
constexpr std::size_t kSlotBytes = 4096;

std::string host_tag() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  std::uint32_t h = 2166136261u;  // FNV-1a 32
  for (const char* p = name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
  char tag[9];
  std::snprintf(tag, sizeof tag, "%08x", h);
  return tag;
}

bool all_of(std::string_view s, bool (*ok)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

struct Slot {
  std::atomic<bool> used{false};
  char path[kSlotBytes];
};
Slot g_slots[kSlots];
std::atomic<int> g_next_slot{0};

}  // namespace

UniqueFd create_temp_file(const std::string& dir, const std::string& base, std::string* temp_path,
                          unsigned mode) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device seed;
  std::mt19937 rng(seed());
  const std::string prefix = (dir.empty()         ? ""
                              : dir.back() == '/' ? dir
                                                  : dir + "/") +
                             "." + base.substr(0, kMaxTempBase) + std::string(kTempMarker) + host_tag() +
                             "." + std::to_string(::getpid()) + ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = prefix;
    for (int i = 0; i < 6; ++i) path += kChars[rng() % (sizeof kChars - 1)];
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (fd.valid()) {
      *temp_path = path;
      return fd;
    }
    if (errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return UniqueFd();
}

bool is_stale_temp_name(const std::string& name) {
  // From the right: ".XXXXXX", ".PID", ".HOST", ".tmp", then a non-empty ".BASE".
  std::string_view s = name;
  auto take_field = [&s](bool (*ok)(char), std::size_t len) -> std::string_view {
    std::size_t dot = s.rfind('.');
    if (dot == std::string_view::npos) return {};
    std::string_view field = s.substr(dot + 1);
    if (!all_of(field, ok) || (len != 0 && field.size() != len)) return {};
    s = s.substr(0, dot);
    return field;
  };
  if (take_field(is_alnum, 6).empty()) return false;
  std::string_view pid_text = take_field(is_digit, 0);
  if (pid_text.empty() || pid_text.size() > 9) return false;
  std::string_view host = take_field(is_hex, 8);
  if (host.empty() || host != host_tag()) return false;
  if (s.size() < 5 || s.substr(s.size() - 4) != ".tmp" || s[0] != '.' || s.size() == 5) return false;
  const long pid = std::stol(std::string(pid_text));
  if (pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

int remove_stale_temp_files(const std::string& dir) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) return 0;
  int removed = 0;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name[0] != '.' || !is_stale_temp_name(name)) continue;
    if (::unlinkat(::dirfd(d), name.c_str(), 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

int register_temp_file(const std::string& path) {
  if (path.size() >= kSlotBytes) return -1;
  // Round-robin, so a slot just released is not rewritten while a handler may still read it.
  for (int tries = 0; tries < kSlots; ++tries) {
    const int i = g_next_slot.fetch_add(1) % kSlots;
    Slot& slot = g_slots[i];
    if (slot.used.load()) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    return i;
  }
  return -1;
}

void unregister_temp_file(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false);
}

void remove_registered_temp_files() {
  for (Slot& slot : g_slots) {
    if (slot.used.load()) ::unlink(slot.path);
  }
}

}  // namespace core
