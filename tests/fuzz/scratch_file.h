// A per-process scratch file for fuzz targets whose code under test reads from a path.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace fuzz {

inline std::string scratch_path(const std::string& name) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/nmt-fuzz-XXXXXX";
    if (!::mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  return dir + "/" + name;
}

inline void write_file(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
}

}  // namespace fuzz
