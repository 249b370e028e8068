// Digests of files as the hub states them: sha256 for LFS files, the git blob id (sha1 of
// "blob SIZE\0" + content) for the small files kept in git itself.
#pragma once

#include <filesystem>
#include <string>

namespace hub {

// Lower-case hex; throws core::Error naming the file when it cannot be read.
std::string sha256_hex(const std::filesystem::path& file);
std::string git_blob_id(const std::filesystem::path& file);
std::string sha256_of_text(const std::string& text);

}  // namespace hub
