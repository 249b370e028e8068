#include "core/utf8_text.h"

namespace core {

bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    Utf8Step step = utf8_step(p + i, s.size() - i);
    if (!step.valid) return false;
    i += step.length;
  }
  return true;
}

std::size_t count_invalid_utf8_bytes(std::string_view s, bool ignore_truncated_tail) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0, invalid = 0;
  while (i < s.size()) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    Utf8Step step = utf8_step(p + i, s.size() - i);
    if (!step.valid && !(step.truncated && ignore_truncated_tail)) invalid += step.length;
    i += step.length;
  }
  return invalid;
}

std::string sanitize_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::string out;
  out.reserve(s.size());
  std::size_t run = 0;  // start of the pending run of good bytes, copied in one append
  std::size_t i = 0;
  while (i < s.size()) {
    if (p[i] != 0 && p[i] < 0x80) {
      ++i;
      continue;
    }
    Utf8Step step = p[i] == 0 ? Utf8Step{1, false, false} : utf8_step(p + i, s.size() - i);
    if (step.valid) {
      i += step.length;
      continue;
    }
    out.append(s.data() + run, i - run);
    out.append(kReplacementChar);
    i += step.length;
    run = i;
  }
  out.append(s.data() + run, s.size() - run);
  return out;
}

}  // namespace core
