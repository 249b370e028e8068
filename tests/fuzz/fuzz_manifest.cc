// libFuzzer target: arbitrary bytes as a directory-mode manifest journal (.nmt-manifest.json) read by
// cli::Manifest, then a record appended and the journal compacted and read back. A damaged manifest must
// only cost warnings (its files are redone), never a crash, an exception other than IoError, or a record
// that reads back differently.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/files/manifest.h"
#include "cli/io/io_error.h"
#include "scratch_file.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// A fresh output directory per input: the journal, its lock and temp files stay apart between runs.
std::string fresh_dir() {
  const std::string dir = fuzz::scratch_path("out");
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  } else {
    check(::mkdir(dir.c_str(), 0700) == 0);
  }
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dir = fresh_dir();
  const std::string own = cli::Manifest::file_name(0, 1);
  fuzz::write_file(dir + "/" + own, reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> wanted = {"a.txt", "sub/b.txt", std::string("caf\xe9.txt")};
  cli::ManifestEntry entry;
  entry.size = size;
  entry.mtime_ns = 1;
  entry.content_hash = "0123456789abcdef";
  entry.model = "m";
  entry.options = "o";
  try {
    cli::Manifest manifest(dir, own, wanted);
    for (const std::string& name : wanted) manifest.find(name);
    manifest.record("a.txt", entry);
    manifest.compact();
  } catch (const cli::IoError&) {
    return 0;
  }
  cli::Manifest reread(dir, own, wanted);
  const std::vector<cli::ManifestEntry> found = reread.find("a.txt");
  check(!found.empty() && found.front().same_origin(entry));
  return 0;
}
