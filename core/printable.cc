#include "core/printable.h"

namespace core {

namespace {

void append_hex_escape(std::string& out, unsigned char byte) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

}  // namespace

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

std::string printable(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (p[i] < 0x20 || p[i] == 0x7F) {
      append_hex_escape(out, p[i++]);
      continue;
    }
    const Utf8Step step = utf8_step(p + i, text.size() - i);
    const bool c1_control = step.valid && step.length == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0;
    if (step.valid && !c1_control) {
      out.append(text.data() + i, step.length);
    } else {
      for (std::size_t k = 0; k < step.length; ++k) append_hex_escape(out, p[i + k]);
    }
    i += step.length;
  }
  return out;
}

}  // namespace core
