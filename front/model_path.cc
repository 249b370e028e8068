// Its own translation unit, outside the unity batch: the build sets the data directories on this file alone
// (CMakeLists.txt), so it includes nothing heavy.
#include "front/model_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace front {

namespace {

std::string executable_dir() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  std::string path(buf.data(), static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool has_model(const std::string& dir) {
  struct stat st;
  return ::stat((dir + "/model.json").c_str(), &st) == 0;
}

}  // namespace

std::string bundled_model_dir(const std::string& name) {
  const std::string exe = executable_dir();
  const std::vector<std::string> candidates = {
      exe + "/../share/nmt/" + name,  // make install: PREFIX/bin/nmt, PREFIX/share/nmt/
      exe + "/../data/" + name,       // build tree: REPO/build/nmt
      std::string(NMT_INSTALL_DATA_DIR) + "/" + name,
      std::string(NMT_SOURCE_DATA_DIR) + "/" + name,
  };
  for (const auto& c : candidates) {
    if (has_model(c)) return c;
  }
  return candidates.back();
}

std::string default_model_dir() { return bundled_model_dir(kDefaultModelName); }

}  // namespace front
