#include "cli/utf8.h"

namespace cli {

Utf8Step utf8_step(const unsigned char* p, std::size_t n) {
  const unsigned char lead = p[0];
  if (lead < 0x80) return {1, true, false};
  // Continuation count and the allowed range of the second byte (later ones are always 80..BF).
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead == 0xE0) {
    need = 2, lo = 0xA0;  // excludes overlongs
  } else if (lead == 0xED) {
    need = 2, hi = 0x9F;  // excludes surrogates D800..DFFF
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    need = 2;
  } else if (lead == 0xF0) {
    need = 3, lo = 0x90;  // excludes overlongs
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    need = 3;
  } else if (lead == 0xF4) {
    need = 3, hi = 0x8F;  // excludes > U+10FFFF
  } else {
    return {1, false, false};  // 80..BF stray continuation, C0/C1 overlong, F5..FF
  }
  for (std::size_t i = 1; i <= need; ++i) {
    if (i >= n) return {i, false, true};
    if (p[i] < lo || p[i] > hi) return {i, false, false};
    lo = 0x80, hi = 0xBF;
  }
  return {need + 1, true, false};
}

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

}  // namespace cli
