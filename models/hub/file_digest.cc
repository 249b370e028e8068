#include "models/hub/file_digest.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "core/error.h"

namespace hub {

namespace {

constexpr size_t kReadChunk = 1 << 20;

std::string to_hex(const unsigned char* bytes, unsigned length) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

// The digest `md` of `prefix` followed by the file's bytes.
std::string digest(const EVP_MD* md, const std::filesystem::path& file, const std::string& prefix) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw core::Error(file.string() + ": cannot open to check its digest (" + std::strerror(errno) + ")");
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) throw core::Error("cannot start a digest");
  EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
  std::vector<char> buffer(kReadChunk);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw core::Error(file.string() + ": read error while checking its digest");
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(ctx.get(), out, &length);
  return to_hex(out, length);
}

}  // namespace

std::string sha256_hex(const std::filesystem::path& file) { return digest(EVP_sha256(), file, ""); }

std::string sha256_of_text(const std::string& text) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_Digest(text.data(), text.size(), out, &length, EVP_sha256(), nullptr);
  return to_hex(out, length);
}

std::string git_blob_id(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw core::Error(file.string() + ": cannot read its size (" + ec.message() + ")");
  return digest(EVP_sha1(), file, "blob " + std::to_string(size) + std::string(1, '\0'));
}

}  // namespace hub
