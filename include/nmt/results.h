// What the library returns: plain structs, arrays of them, no internal type.
#pragma once

#include <string>
#include <vector>

namespace nmt {

// One word of the translation linked to one word of the line (whitespace-separated words, 0-based).
struct WordLink {
  int source = 0;
  int target = 0;
};

struct Hypothesis {
  std::string text;
  std::vector<std::string> tokens;  // the target pieces behind `text` (SentencePiece's, EOS excluded)
  float score = 0;                  // raw_score / length^length_penalty, length counting EOS
  float raw_score = 0;              // the sum of its tokens' log-probabilities
  float confidence = 0;             // in [0, 1]; 1 for a blank line
  // Short codes of what went wrong ("length-limit", "wrong-language", "low-confidence", ...: docs/search.md).
  std::vector<std::string> flags;
  std::vector<WordLink> alignment;  // with Options::alignment, in target order
  std::vector<float> word_scores;   // with Options::word_scores: one log-probability per word of `text`
};

// One input line's translation: its hypotheses, best first (Options::n_best of them).
struct Translation {
  std::vector<Hypothesis> hypotheses;
  std::string detected_language;  // the line's language as identified; "" when it cannot be told
};

// A target scored against its source by forced decoding (Translator::score).
struct Score {
  std::vector<std::string> tokens;  // the target's pieces, then "</s>" (EOS)
  std::vector<float> log_probs;     // one per token: log P(token | source, the tokens before it)
  float log_prob = 0;               // their sum
  float normalized = 0;             // log_prob / tokens.size()^length_penalty (the model's)
};

// The model a Translator holds (`nmt info`'s main fields).
struct ModelInfo {
  std::string model_dir;
  std::string source_lang, target_lang;    // "" when the model does not say
  std::vector<std::string> language_tags;  // a multilingual model's target tags, without ">>" "<<"
  int source_vocab_size = 0, target_vocab_size = 0;
  int d_model = 0, encoder_layers = 0, decoder_layers = 0;
  int beam_size = 0;  // the model's decoding defaults
  float length_penalty = 0;
  int threads = 0;  // the Translator's
};

}  // namespace nmt
