// The values each decoding setting may take, declared once: model.json's reader, the converters (Marian's
// decoder.yml, Hugging Face's generation settings) and the translate options table
// (pipeline/option_table.cc) all read them here, so a model cannot carry a default the engine refuses.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace models {

struct IntRange {
  int64_t lo, hi;
};
struct NumberRange {
  double lo, hi;
};

inline constexpr IntRange kBeamSizeRange{1, 128};
inline constexpr NumberRange kLengthPenaltyRange{-10, 10};
// Generated tokens, the end included: room for one word and the end.
inline constexpr IntRange kMaxLengthRange{2, 1 << 20};
inline constexpr NumberRange kMaxLengthARange{0, 100};
inline constexpr IntRange kMaxLengthBRange{0, 1 << 20};
inline constexpr NumberRange kRepetitionPenaltyRange{0.01, 100};
inline constexpr IntRange kNoRepeatNgramSizeRange{0, 1024};
inline constexpr IntRange kAlignmentLayerRange{0, 1023};
inline constexpr IntRange kAlignmentHeadRange{0, 1023};
// model.json's optional `beam_rules`, indexed by core::BeamRules: whose beam search the model follows
// (absent: the first).
inline constexpr const char* kBeamRulesNames[] = {"hugging_face", "ctranslate2", "marian"};

// "1..128" and "-10..10", for converters' messages (the CLI's say it in the options table's words).
inline std::string range_text(IntRange r) { return std::to_string(r.lo) + ".." + std::to_string(r.hi); }
inline std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}
inline std::string range_text(NumberRange r) { return number_text(r.lo) + ".." + number_text(r.hi); }

// The shortest sentence (one token and the end) must leave room for a token and the end:
// floor(a * kShortestSourceTokens + b) >= kMaxLengthRange.lo.
inline constexpr int kShortestSourceTokens = 2;

}  // namespace models
