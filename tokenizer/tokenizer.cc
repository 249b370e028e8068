#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <exception>
#include <new>

#include "core/error.h"
#include "core/regular_file.h"

namespace tokenizer {

namespace {

std::unique_ptr<sentencepiece::SentencePieceProcessor> load_spm(const std::string& path) {
  // Read by us, not by SentencePiece: its Load() opens anything (a FIFO blocks, /dev/zero never ends).
  const std::string proto = core::read_regular_file(path, "SentencePiece model", kMaxTokenizerFileBytes);
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status status;
  try {
    status = sp->LoadFromSerializedProto(proto);
  } catch (const std::bad_alloc&) {
    throw;  // the memory limit, not the model (cli/commands/main.cc says which)
  } catch (const std::exception& e) {
    // SentencePiece's trie builder throws on some malformed models (an empty piece, say).
    throw core::Error(path + ": cannot load SentencePiece model: " + e.what());
  }
  if (!status.ok()) throw core::Error(path + ": cannot load SentencePiece model: " + status.ToString());
  return sp;
}

const std::string kWordBoundary = "\xe2\x96\x81";  // U+2581, SentencePiece's space marker

// A leading ">>xx<<" language tag (multilingual OPUS-MT targets); returns its length or 0.
size_t language_tag_length(const std::string& text) {
  if (text.compare(0, 2, ">>") != 0) return 0;
  const size_t end = text.find("<<", 2);
  if (end == std::string::npos || end == 2 || text.find(' ') < end) return 0;
  return end + 2;
}

}  // namespace

Tokenizer::Tokenizer(const TokenizerSpec& spec) : unk_id_(spec.unk_id), skip_(spec.skip_on_decode) {
  source_ = load_spm(spec.source_spm);
  target_ = spec.target_spm == spec.source_spm ? nullptr : load_spm(spec.target_spm);
  if (!spec.source_vocab.empty())
    source_vocab_ = std::make_shared<const Vocabulary>(Vocabulary::load_json(spec.source_vocab));
  if (!spec.target_vocab.empty()) {
    target_vocab_ = spec.target_vocab == spec.source_vocab
                        ? source_vocab_
                        : std::make_shared<const Vocabulary>(Vocabulary::load_json(spec.target_vocab));
  }
  if (source_vocab_ && !target_vocab_)
    throw core::Error(spec.source_vocab + ": a target vocabulary is needed too");
}

Tokenizer::~Tokenizer() = default;

std::vector<std::string> Tokenizer::encode_pieces(const std::string& text) const {
  std::vector<std::string> pieces;
  source_->Encode(text, &pieces);
  return pieces;
}

std::vector<int32_t> Tokenizer::encode(const std::string& text) const {
  std::vector<int32_t> ids;
  if (!source_vocab_) {
    std::vector<int> spm_ids;
    source_->Encode(text, &spm_ids);
    ids.assign(spm_ids.begin(), spm_ids.end());
    return ids;
  }
  std::string rest = text;
  const size_t tag = language_tag_length(text);
  if (tag > 0) {
    const int32_t tag_id = source_vocab_->id(text.substr(0, tag), -1);
    if (tag_id >= 0) {
      ids.push_back(tag_id);
      rest = text.substr(tag);
    }
  }
  for (const std::string& piece : encode_pieces(rest)) ids.push_back(source_vocab_->id(piece, unk_id_));
  return ids;
}

std::vector<int32_t> Tokenizer::encode_target(const std::string& text) const {
  const sentencepiece::SentencePieceProcessor& sp = target_ ? *target_ : *source_;
  std::vector<int32_t> ids;
  if (!target_vocab_) {
    std::vector<int> spm_ids;
    sp.Encode(text, &spm_ids);
    ids.assign(spm_ids.begin(), spm_ids.end());
    return ids;
  }
  std::vector<std::string> pieces;
  sp.Encode(text, &pieces);
  for (const std::string& piece : pieces) ids.push_back(target_vocab_->id(piece, unk_id_));
  return ids;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  const sentencepiece::SentencePieceProcessor& sp = target_ ? *target_ : *source_;
  std::vector<int32_t> kept;
  for (int32_t id : ids) {
    if (std::find(skip_.begin(), skip_.end(), id) == skip_.end()) kept.push_back(id);
  }
  std::string text;
  if (!target_vocab_) {
    std::vector<int> spm_ids(kept.begin(), kept.end());
    sp.Decode(spm_ids, &text);
    return text;
  }
  std::vector<std::string> pieces;
  for (int32_t id : kept) {
    if (id == unk_id_) continue;  // Hugging Face drops <unk> when detokenizing
    pieces.emplace_back(target_vocab_->piece(id));
  }
  sp.Decode(pieces, &text);
  // Pieces unknown to target.spm keep their marker: turn it into a space, then trim.
  for (size_t pos; (pos = text.find(kWordBoundary)) != std::string::npos;)
    text.replace(pos, kWordBoundary.size(), " ");
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

namespace {

std::vector<std::string> pieces_of(const std::vector<int32_t>& ids, const Vocabulary* vocab,
                                   const sentencepiece::SentencePieceProcessor& sp) {
  std::vector<std::string> pieces;
  for (int32_t id : ids) {
    if (vocab)
      pieces.emplace_back(vocab->piece(id));
    else
      pieces.push_back(id >= 0 && id < sp.GetPieceSize() ? sp.IdToPiece(id) : std::string());
  }
  return pieces;
}

}  // namespace

std::vector<std::string> Tokenizer::source_pieces(const std::vector<int32_t>& ids) const {
  return pieces_of(ids, source_vocab_.get(), *source_);
}

std::vector<std::string> Tokenizer::target_pieces(const std::vector<int32_t>& ids) const {
  return pieces_of(ids, target_vocab_.get(), target_ ? *target_ : *source_);
}

std::vector<std::string> Tokenizer::language_tags() const {
  std::vector<std::string> tags;
  const int32_t n = source_vocab_size();
  for (int32_t id = 0; id < n; ++id) {
    const std::string piece = source_vocab_ ? std::string(source_vocab_->piece(id)) : source_->IdToPiece(id);
    if (piece.size() > 4 && language_tag_length(piece) == piece.size())
      tags.push_back(piece.substr(2, piece.size() - 4));
  }
  std::sort(tags.begin(), tags.end());
  return tags;
}

int32_t Tokenizer::source_vocab_size() const {
  return source_vocab_ ? source_vocab_->size() : source_->GetPieceSize();
}

int32_t Tokenizer::target_vocab_size() const {
  if (target_vocab_) return target_vocab_->size();
  return (target_ ? target_ : source_)->GetPieceSize();
}

}  // namespace tokenizer
