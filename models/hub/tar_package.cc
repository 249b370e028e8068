#include "models/hub/tar_package.h"

#include <archive.h>
#include <archive_entry.h>

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/hub/hub_repo.h"
#include "models/hub/url_package.h"

namespace hub {

namespace fs = std::filesystem;

namespace {

constexpr size_t kReadBlock = 1 << 16;

[[noreturn]] void refuse(const fs::path& archive, const std::string& why) {
  throw DownloadError(archive.string() + ": " + why);
}

// libarchive's message for the last failure; it may have none (a null pointer).
std::string error_text(archive* a) {
  const char* text = archive_error_string(a);
  return text ? text : "no detail from libarchive";
}

}  // namespace

void unpack_tar_gz(const fs::path& path, const fs::path& dir) {
  std::unique_ptr<archive, int (*)(archive*)> in(archive_read_new(), archive_read_free);
  if (!in) refuse(path, "cannot start libarchive");
  archive_read_support_filter_gzip(in.get());
  archive_read_support_format_tar(in.get());
  if (archive_read_open_filename(in.get(), path.c_str(), kReadBlock) != ARCHIVE_OK)
    refuse(path, std::string("not a .tar.gz archive (") + error_text(in.get()) + ")");
  fs::create_directories(dir);
  std::set<std::string> seen;
  uint64_t members = 0, total = 0;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(in.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN)
      refuse(path, std::string("damaged archive (") + error_text(in.get()) + ")");
    const char* raw_name = archive_entry_pathname(entry);
    const std::string name = raw_name ? raw_name : "";
    if (++members > kMaxPackageMembers)
      refuse(path, "more than " + std::to_string(kMaxPackageMembers) + " members");
    const auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) continue;
    if (type != AE_IFREG || archive_entry_hardlink(entry) != nullptr)
      refuse(path, "member '" + name + "' is a link, device or FIFO, not a file");
    if (name.empty() || name[0] == '/' || fs::path(name).lexically_normal().string().rfind("..", 0) == 0)
      refuse(path, "member '" + name + "' points outside the package");
    const std::string flat = fs::path(name).filename().string();
    if (flat.empty() || flat == "." || flat == ".." || !seen.insert(flat).second)
      refuse(path, "member '" + name + "' is named twice or not a file name");
    std::ofstream out(dir / flat, std::ios::binary | std::ios::trunc);
    for (la_ssize_t n; (n = archive_read_data(in.get(), buffer.data(), buffer.size())) != 0;) {
      if (n < 0) refuse(path, "member '" + name + "' is damaged (" + error_text(in.get()) + ")");
      total += static_cast<uint64_t>(n);
      if (total > kMaxUnpackedBytes)
        refuse(path, "unpacks to more than " + std::to_string(kMaxUnpackedBytes >> 30) + " GB");
      out.write(buffer.data(), n);
    }
    out.close();
    if (!out) refuse(path, "member '" + name + "' cannot be written to " + dir.string());
  }
}

}  // namespace hub
