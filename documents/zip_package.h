// A zip package (DOCX, ODT) in memory: its members read, and a copy written with some members replaced and
// every other member's content, order and compression method kept.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct zip;

namespace documents {

// What the members read from one package may inflate to, together, where no memory limit is given (the
// server). Under --max-memory M it is M / kMemoryPerInflatedByte: a member's bytes, its parsed tree and
// the member written again take several times its size, and the model needs the rest.
inline constexpr uint64_t kDefaultMaxInflated = uint64_t{256} << 20;
inline constexpr uint64_t kMemoryPerInflatedByte = 8;
inline uint64_t max_inflated_for(uint64_t max_memory) { return max_memory / kMemoryPerInflatedByte; }
// More members than this is no office document or book (libzip keeps an entry for each).
inline constexpr size_t kMaxPackageMembers = 20000;

class ZipPackage {
 public:
  // Throws core::Error naming `name` when the bytes are not a zip archive or hold more than
  // kMaxPackageMembers members. The members read may inflate to `max_inflated` bytes together.
  ZipPackage(std::string bytes, const std::string& name, uint64_t max_inflated = kDefaultMaxInflated);
  ~ZipPackage();
  ZipPackage(const ZipPackage&) = delete;
  ZipPackage& operator=(const ZipPackage&) = delete;

  const std::vector<std::string>& names() const { return names_; }
  // The member inflated a chunk at a time, never sized by what the file claims; throws core::Error naming
  // the package and the member when it declares or inflates to more than the budget has left, or to other
  // than it declares.
  std::string read(const std::string& member) const;
  // The archive with the members of `replaced` holding their new contents.
  std::string write(const std::map<std::string, std::string>& replaced) const;

 private:
  std::string bytes_, name_;
  uint64_t max_inflated_;
  mutable uint64_t inflated_ = 0;  // by the members read so far
  zip* archive_ = nullptr;
  std::vector<std::string> names_;
};

}  // namespace documents
