// A .tar.gz model package (translateLocally's, Bergamot's), unpacked with libarchive under the rules
// unpack_zip keeps (url_package.h).
#pragma once

#include <filesystem>

namespace hub {

// Unpacks the archive's regular files into `dir` (created), flat: directories inside are dropped, so a
// package with a top folder unpacks as one without. Refuses (DownloadError) a member named "..",
// absolute or twice, a link, device, FIFO or socket, and a package over kMaxUnpackedBytes or
// kMaxPackageMembers.
void unpack_tar_gz(const std::filesystem::path& archive, const std::filesystem::path& dir);

}  // namespace hub
