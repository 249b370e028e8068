// A zip package (DOCX, ODT) in memory: its members read, and a copy written with some members replaced and
// every other member's content, order and compression method kept.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

struct zip;

namespace documents {

class ZipPackage {
 public:
  // Throws core::Error naming `name` when the bytes are not a zip archive.
  ZipPackage(std::string bytes, const std::string& name);
  ~ZipPackage();
  ZipPackage(const ZipPackage&) = delete;
  ZipPackage& operator=(const ZipPackage&) = delete;

  const std::vector<std::string>& names() const { return names_; }
  std::string read(const std::string& member) const;
  // The archive with the members of `replaced` holding their new contents.
  std::string write(const std::map<std::string, std::string>& replaced) const;

 private:
  std::string bytes_, name_;
  zip* archive_ = nullptr;
  std::vector<std::string> names_;
};

}  // namespace documents
