// Reading one member of a zip archive (an .npz, a zip-format pytorch_model.bin) with libzip, where the
// sizes the archive records are claims to check before anything is allocated.
#pragma once

#include <zip.h>

#include <cstdint>
#include <functional>
#include <string>

namespace models {

// libzip's message for an error code from zip_open/zip_fdopen.
std::string zip_error_message(int code);

constexpr uint64_t kMaxDeflateRatio = 1032;  // deflate's largest expansion of its input

// The member's recorded size, refused (ModelError "WHERE: ...") above `max_bytes` or above what
// `archive_bytes` of archive can hold: a member cannot expand beyond deflate's ratio of the bytes it
// occupies.
uint64_t checked_member_size(zip_t* archive, uint64_t index, uint64_t archive_bytes, uint64_t max_bytes,
                             const std::string& where);

// A check of a member's first `bytes` bytes (all of it when shorter), run before the rest is inflated:
// `check(head, member_size)` throws to refuse the member before a small archive inflates to gigabytes.
struct ZipHeadCheck {
  uint64_t bytes;
  std::function<void(const std::string& head, uint64_t member_size)> check;
};

// Appends the whole member to *out, read in pieces so that memory follows the data that arrives rather
// than the recorded size; read to the end so that libzip checks the CRC. Refused when it is shorter or
// longer than recorded, or when `head` (optional) refuses its first bytes.
void read_zip_member(zip_t* archive, uint64_t index, uint64_t archive_bytes, uint64_t max_bytes,
                     const std::string& where, std::string* out, const ZipHeadCheck* head = nullptr);

}  // namespace models
