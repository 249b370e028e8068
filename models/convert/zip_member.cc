#include "models/convert/zip_member.h"

#include <algorithm>

#include "models/model_error.h"

namespace models {

namespace {

constexpr uint64_t kReadPiece = uint64_t{64} << 20;

}  // namespace

std::string zip_error_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string msg = zip_error_strerror(&error);
  zip_error_fini(&error);
  return msg;
}

uint64_t checked_member_size(zip_t* archive, uint64_t index, uint64_t archive_bytes, uint64_t max_bytes,
                             const std::string& where) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(archive, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw ModelError(where + ": cannot stat: " + zip_strerror(archive));
  if (st.size > max_bytes)
    throw ModelError(where + ": member too large (" + std::to_string(st.size) + " bytes, at most " +
                     std::to_string(max_bytes) + ")");
  const uint64_t stored = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : archive_bytes;
  if (stored > archive_bytes || st.size > (std::min(stored, archive_bytes) + 1) * kMaxDeflateRatio) {
    throw ModelError(where + ": declares " + std::to_string(st.size) + " bytes, more than the " +
                     std::to_string(archive_bytes) + "-byte archive can hold");
  }
  return st.size;
}

void read_zip_member(zip_t* archive, uint64_t index, uint64_t archive_bytes, uint64_t max_bytes,
                     const std::string& where, std::string* out, const ZipHeadCheck* head) {
  const uint64_t size = checked_member_size(archive, index, archive_bytes, max_bytes, where);
  zip_file_t* f = zip_fopen_index(archive, index, 0);
  if (!f) throw ModelError(where + ": cannot open: " + zip_strerror(archive));
  const size_t start = out->size();
  const uint64_t head_bytes = head ? std::min(size, head->bytes) : 0;
  bool head_checked = head == nullptr;
  uint64_t done = 0;
  while (done < size) {
    if (!head_checked && done == head_bytes) {
      try {
        head->check(out->substr(start), size);
      } catch (...) {
        zip_fclose(f);
        throw;
      }
      head_checked = true;
      continue;
    }
    const uint64_t want = head_checked ? done + kReadPiece : head_bytes;
    out->resize(start + static_cast<size_t>(std::min(size, want)));
    const zip_int64_t got = zip_fread(f, &(*out)[start + done], out->size() - start - done);
    if (got < 0) {
      const std::string msg = zip_file_strerror(f);
      zip_fclose(f);
      throw ModelError(where + ": read failed: " + msg);
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  char extra;
  const zip_int64_t more = done == size ? zip_fread(f, &extra, 1) : 0;
  const std::string error = more < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (done != size)
    throw ModelError(where + ": truncated member (" + std::to_string(done) + " of " + std::to_string(size) +
                     " bytes)");
  if (more < 0) throw ModelError(where + ": read failed: " + error);
  if (more > 0) throw ModelError(where + ": member is longer than its recorded size");
}

}  // namespace models
