// Text <-> token ids: SentencePiece segments; ids come from SentencePiece itself or, when the model
// carries its own vocabulary (OPUS-MT), from that vocabulary's piece table.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/vocabulary.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tokenizer {

struct TokenizerSpec {
  std::string source_spm;  // paths
  std::string target_spm;
  std::string source_vocab;  // empty: use SentencePiece ids
  std::string target_vocab;
  int32_t unk_id = 1;                   // for pieces missing from a vocabulary
  std::vector<int32_t> skip_on_decode;  // ids dropped from output (eos, pad, decoder start...)
};

class Tokenizer {
 public:
  explicit Tokenizer(const TokenizerSpec& spec);  // throws core::Error naming the file
  ~Tokenizer();

  // Source ids for one line (no EOS). A leading ">>xx<<" tag that the vocabulary knows is one token.
  std::vector<int32_t> encode(const std::string& text) const;
  // Source pieces (for splitting long input at piece boundaries).
  std::vector<std::string> encode_pieces(const std::string& text) const;
  // Detokenized text of target ids.
  std::string decode(const std::vector<int32_t>& ids) const;
  // Target ids of a target-language text (no EOS): a forced prefix of the translation.
  std::vector<int32_t> encode_target(const std::string& text) const;
  // The piece of each source / target id, as the vocabulary spells it ("▁Ein"; "" for an id without one).
  std::vector<std::string> source_pieces(const std::vector<int32_t>& ids) const;
  std::vector<std::string> target_pieces(const std::vector<int32_t>& ids) const;

  // The source side's ">>xx<<" language tags (multilingual targets), sorted, without the brackets.
  std::vector<std::string> language_tags() const;

  int32_t source_vocab_size() const;
  int32_t target_vocab_size() const;

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> source_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> target_;
  // One table when both sides name the same file (OPUS-MT's shared vocab.json).
  std::shared_ptr<const Vocabulary> source_vocab_;
  std::shared_ptr<const Vocabulary> target_vocab_;
  int32_t unk_id_;
  std::vector<int32_t> skip_;
};

}  // namespace tokenizer
