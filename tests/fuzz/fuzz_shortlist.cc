// libFuzzer target: arbitrary bytes as a model's shortlist.bin, with their last four bytes set to the CRC
// of the rest so that the checks past the checksum run too. A hostile file must give a ModelError, never
// a crash; one that reads must give a vocabulary of sorted ids below the target vocabulary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/model_error.h"
#include "models/shortlist.h"
#include "scratch_file.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 4) {
    const uint32_t crc = models::Shortlist::checksum(bytes.substr(0, bytes.size() - 4));
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  }
  const std::string path = fuzz::scratch_path("shortlist.bin");
  fuzz::write_file(path, bytes.data(), bytes.size());
  constexpr int kSrcVocab = 3, kTgtVocab = 10;
  try {
    const models::Shortlist shortlist = models::Shortlist::read(path, kSrcVocab, kTgtVocab);
    const std::vector<int32_t> ids = shortlist.vocabulary({{0, 1, 2, 7}}, {3});
    for (size_t i = 0; i < ids.size(); ++i)
      check(ids[i] >= 0 && ids[i] < kTgtVocab && (i == 0 || ids[i] > ids[i - 1]));
  } catch (const models::ModelError&) {
  }
  return 0;
}
