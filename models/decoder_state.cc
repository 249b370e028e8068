#include "models/decoder_state.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/attend_kernels.h"
#include "core/gemm.h"
#include "core/kernels.h"
#include "models/layers.h"

namespace models {

DecoderState::DecoderState(const Transformer& model, const EncodedBatch& encoded, int max_rows, int max_steps,
                           const AttentionRequest* capture)
    : DecoderState(model, encoded, max_rows, max_steps, capture, attention_cache_type(model.weights())) {}

DecoderState::DecoderState(const Transformer& model, const EncodedBatch& encoded, int max_rows, int max_steps,
                           const AttentionRequest* capture, CacheType caches)
    : model_(model),
      encoded_(encoded),
      d_(model.config().d_model),
      max_rows_(max_rows),
      max_steps_(max_steps) {
  const ModelConfig& c = model.config();
  // Never more entries live than rows x positions, so the stack cannot run dry.
  const size_t n_entries = static_cast<size_t>(max_rows) * max_steps;
  const bool ssru = c.decoder_recurrence == DecoderRecurrence::kSsru;
  if (ssru) ssru_ = std::make_unique<SsruCells>(max_rows, c.decoder_layers, d_);
  for (int l = 0; l < c.decoder_layers && !ssru; ++l) {
    self_k_.emplace_back(n_entries, d_, c.n_heads, caches);
    self_v_.emplace_back(n_entries, d_, c.n_heads, caches);
  }
  entries_.resize(n_entries);
  spare_entries_.resize(n_entries);
  free_entries_.reserve(n_entries);
  used_entries_.reserve(n_entries);
  referenced_.assign(n_entries, 0);
  project_cross(model, encoded, caches);
  const size_t rows_d = static_cast<size_t>(max_rows) * d_;
  for (auto* b : {&x_, &normed_, &q_, &ctx_, &tmp_}) *b = core::PooledBuffer(rows_d);
  if (model.weights().output.int8) output_rows_.reserve(max_rows, d_);
  qkv_ = core::PooledBuffer(3 * rows_d);
  hidden_ = core::PooledBuffer(static_cast<size_t>(max_rows) * c.ffn_dim);
  const int longest =
      encoded.lengths.empty() ? 1 : *std::max_element(encoded.lengths.begin(), encoded.lengths.end());
  // One scores scratch per thread of the batch's team (the attention loops split their rows over it).
  scores_stride_ = core::attend_one_scratch(std::max(max_steps, longest), c.n_heads);
  team_size_ = core::team_size();
  scores_ = core::PooledBuffer(scores_stride_ * team_size_);
  if (capture) {
    AttentionRequest request = *capture;
    request.decoder = request.decoder && !ssru;  // an SSRU decoder has no self-attention to record
    capture_ = std::make_unique<AttentionCapture>(request, c, max_rows, max_steps, longest);
  }
}

void DecoderState::project_cross(const Transformer& model, const EncodedBatch& encoded, CacheType caches) {
  const ModelConfig& c = model.config();
  const bool compact = caches != CacheType::kF32;
  const size_t src_rows = encoded.memory.size() / d_;
  // Compact caches take the projections in blocks of rows through a small f32 scratch, so the f32 keys
  // and values of the whole batch are never held.
  constexpr size_t kBlockRows = 64;
  std::vector<float> block(compact ? std::min(src_rows, kBlockRows) * d_ : 0);
  for (const DecoderLayerWeights& layer : model.weights().decoder) {
    cross_k_.emplace_back(src_rows, d_, c.n_heads, caches);
    cross_v_.emplace_back(src_rows, d_, c.n_heads, caches);
    const AttentionWeights& a = layer.cross_attn;
    const std::pair<const Linear*, CacheRows*> parts[] = {{&a.k, &cross_k_.back()}, {&a.v, &cross_v_.back()}};
    for (const auto& [linear, cache] : parts) {
      if (!compact) {
        project(*linear, encoded.memory.data(), static_cast<int>(src_rows), cache->floats(0));
        continue;
      }
      for (size_t first = 0; first < src_rows; first += kBlockRows) {
        const size_t n = std::min(kBlockRows, src_rows - first);
        project(*linear, encoded.memory.data() + first * d_, static_cast<int>(n), block.data());
        for (size_t r = 0; r < n; ++r) cache->store(first + r, block.data() + r * d_);
      }
    }
  }
}

void DecoderState::start(int n_sentences) {
  if (n_sentences > max_rows_) throw std::invalid_argument("DecoderState: more sentences than rows");
  n_rows_ = n_sentences;
  filled_ = 0;
  stepped_rows_ = 0;
  free_entries_.clear();
  for (size_t e = entries_.size(); e-- > 0;) free_entries_.push_back(static_cast<int32_t>(e));
  used_entries_.clear();
  if (capture_) capture_->reset();
  if (ssru_) ssru_->start(n_sentences);
}

void DecoderState::select_rows(const std::vector<int>& src_rows) {
  const int n = static_cast<int>(src_rows.size());
  if (n > max_rows_) throw std::invalid_argument("DecoderState: too many rows selected");
  bool identity_prefix = true;
  for (int i = 0; i < n; ++i) identity_prefix = identity_prefix && src_rows[i] == i;
  if (!identity_prefix && filled_ > 0) {
    // Each new row takes its source row's list of entries; the cached keys and values stay put.
    const size_t bytes = static_cast<size_t>(filled_) * sizeof(int32_t);
    for (int i = 0; i < n; ++i) {
      std::memcpy(&spare_entries_[static_cast<size_t>(i) * max_steps_],
                  &entries_[static_cast<size_t>(src_rows[i]) * max_steps_], bytes);
    }
    entries_.swap(spare_entries_);
  }
  if (ssru_ && !identity_prefix) ssru_->select_rows(src_rows);
  n_rows_ = n;
  stepped_rows_ = 0;
  if (filled_ > 0 && !capture_) reclaim_entries();
}

void DecoderState::allocate_entries(int position) {
  for (int r = 0; r < n_rows_; ++r) {
    const int32_t e = free_entries_.back();
    free_entries_.pop_back();
    used_entries_.push_back(e);
    entries_[static_cast<size_t>(r) * max_steps_ + position] = e;
  }
}

void DecoderState::record_entries(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
                                  int position) {
  for (int r = 0; r < n_rows_; ++r) {
    const int32_t* history = &entries_[static_cast<size_t>(r) * max_steps_];
    capture_->record_entry(history[position], position > 0 ? history[position - 1] : -1, tokens[r],
                           sentence_of_row[r]);
  }
}

AttentionMatrices DecoderState::attention(int sentence, const std::vector<int32_t>& tokens) const {
  if (!capture_) throw std::logic_error("DecoderState::attention: made without an attention request");
  return capture_->extract(sentence, tokens, encoded_.lengths.at(sentence));
}

void DecoderState::reclaim_entries() {
  for (int r = 0; r < n_rows_; ++r) {
    const int32_t* history = &entries_[static_cast<size_t>(r) * max_steps_];
    for (int p = 0; p < filled_; ++p) referenced_[history[p]] = 1;
  }
  size_t kept = 0;
  for (const int32_t e : used_entries_) {
    if (referenced_[e]) {
      referenced_[e] = 0;
      used_entries_[kept++] = e;
    } else {
      free_entries_.push_back(e);
    }
  }
  used_entries_.resize(kept);
}

void DecoderState::self_attention(int layer, const float* in, int position, float* result) {
  const ModelConfig& c = model_.config();
  const AttentionWeights& a = model_.weights().decoder[layer].self_attn;
  const int rows = n_rows_;
  const QkvRows p = project_qkv(a, in, rows, d_, qkv_.data(), static_cast<size_t>(max_rows_) * d_);
  CacheRows& k_cache = self_k_[layer];
  CacheRows& v_cache = self_v_[layer];
  core::split_range(rows, kRowsPerPart, [&](int begin, int end, int part) {
    for (int r = begin; r < end; ++r) {
      const int32_t* history = &entries_[static_cast<size_t>(r) * max_steps_];
      const size_t entry = static_cast<size_t>(history[position]);
      const size_t row = static_cast<size_t>(r) * p.stride;
      k_cache.store(entry, p.k + row);
      v_cache.store(entry, p.v + row);
      attend_cached(p.q + row, k_cache, v_cache, 0, history, position + 1, d_, c.n_heads, scores(part),
                    ctx_.data() + static_cast<size_t>(r) * d_);
      if (capture_ && capture_->records_self(layer)) {
        attention_weights(p.q + row, k_cache, 0, history, position + 1, d_, c.n_heads,
                          capture_->self_stride(), capture_->self_slot(layer, history[position]));
      }
    }
  });
  project(a.o, ctx_.data(), rows, result);
}

void DecoderState::cross_attention(int layer, const float* in, const std::vector<int>& sentence_of_row,
                                   int position, float* result) {
  const ModelConfig& c = model_.config();
  const AttentionWeights& a = model_.weights().decoder[layer].cross_attn;
  const int rows = n_rows_;
  // Marian's products need the keys and values as floats.
  const bool marian_rounding =
      c.attention_rounding == AttentionRounding::kMarian && cross_k_[layer].type() == CacheType::kF32;
  project(a.q, in, rows, q_.data());
  core::split_range(rows, kRowsPerPart, [&](int begin, int end, int part) {
    for (int r = begin; r < end; ++r) {
      const int s = sentence_of_row[r];
      const size_t first = static_cast<size_t>(encoded_.offsets[s]);
      const float* q = q_.data() + static_cast<size_t>(r) * d_;
      float* ctx = ctx_.data() + static_cast<size_t>(r) * d_;
      if (marian_rounding) {
        attend(q, cross_k_[layer].floats(first), cross_v_[layer].floats(first), 1, encoded_.lengths[s], d_,
               d_, c.n_heads, AttentionRounding::kMarian, scores(part), ctx);
      } else {
        attend_cached(q, cross_k_[layer], cross_v_[layer], first, nullptr, encoded_.lengths[s], d_, c.n_heads,
                      scores(part), ctx);
      }
      if (capture_ && capture_->records_cross(layer)) {
        const int32_t entry = entries_[static_cast<size_t>(r) * max_steps_ + position];
        attention_weights(q, cross_k_[layer], first, nullptr, encoded_.lengths[s], d_, c.n_heads,
                          capture_->cross_stride(), capture_->cross_slot(layer, entry));
      }
    }
  });
  project(a.o, ctx_.data(), rows, result);
}

void DecoderState::step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
                        int position) {
  const ModelConfig& c = model_.config();
  const TransformerWeights& w = model_.weights();
  const int rows = n_rows_;
  if (static_cast<int>(tokens.size()) != rows || static_cast<int>(sentence_of_row.size()) != rows) {
    throw std::invalid_argument("DecoderState::step: one token and one sentence per row expected");
  }
  if (core::team_size() > team_size_) {
    throw std::logic_error("DecoderState::step: made outside the thread team it is used in");
  }
  if (position != filled_ || position >= max_steps_ || position >= c.max_positions) {
    throw std::invalid_argument("DecoderState::step: position " + std::to_string(position) + " out of order");
  }
  allocate_entries(position);
  if (capture_) record_entries(tokens, sentence_of_row, position);
  embed(w.tgt_embed, model_.embedding_scale(), tokens.data(), rows, d_,
        w.tgt_positions + static_cast<size_t>(position) * d_, 0, x_.data());
  for (int l = 0; l < c.decoder_layers; ++l) {
    const DecoderLayerWeights& layer = w.decoder[l];
    residual(x_.data(), rows, d_, layer.self_attn_norm, c.pre_norm, c.layer_norm_eps, normed_.data(),
             tmp_.data(), [&](const float* in, float* result) {
               if (ssru_) {
                 ssru_->step(l, layer, in, rows, q_.data(), ctx_.data(), result);
               } else {
                 self_attention(l, in, position, result);
               }
             });
    residual(
        x_.data(), rows, d_, layer.cross_attn_norm, c.pre_norm, c.layer_norm_eps, normed_.data(), tmp_.data(),
        [&](const float* in, float* result) { cross_attention(l, in, sentence_of_row, position, result); });
    residual(x_.data(), rows, d_, layer.ffn_norm, c.pre_norm, c.layer_norm_eps, normed_.data(), tmp_.data(),
             [&](const float* in, float* result) {
               feed_forward(layer.fc1, layer.fc2, c.activation, in, rows, hidden_.data(), result);
             });
  }
  if (c.final_norm) {
    core::split_range(rows, kRowsPerPart, [&](int begin, int end, int) {
      float* x = x_.data() + static_cast<size_t>(begin) * d_;
      core::layer_norm(x, end - begin, d_, w.decoder_final.gamma, w.decoder_final.beta, c.layer_norm_eps, x);
    });
  }
  if (w.output.int8) output_rows_.quantize(x_.data(), rows, d_, w.output.int8->input_scaling());
  filled_ = position + 1;
  stepped_rows_ = rows;
}

void DecoderState::logits(int first_row, int n_rows, float* out) {
  project_logits(model_.weights().output, first_row, n_rows, out);
}

void DecoderState::project_logits(const Linear& output, int first_row, int n_rows, float* out) {
  if (first_row < 0 || n_rows < 0 || first_row + n_rows > stepped_rows_) {
    throw std::invalid_argument("DecoderState::logits: rows outside the last step");
  }
  // x_ holds each row's final hidden state (after the final norm) until the next step; output_rows_ the
  // same quantized, for int8 weights.
  if (output.int8) {
    core::int8_linear(output_rows_, first_row, n_rows, *output.int8, output.bias, out);
  } else {
    project(output, x_.data() + static_cast<size_t>(first_row) * d_, n_rows, out);
  }
}

void DecoderState::logit_columns(int first_row, int n_rows, int first, int n, float* out) {
  project_logit_columns(model_.weights().output, first_row, n_rows, first, n, out);
}

void DecoderState::project_logit_columns(const Linear& output, int first_row, int n_rows, int first, int n,
                                         float* out) {
  if (first_row < 0 || n_rows < 1 || first_row + n_rows > stepped_rows_ || first < 0 || n < 1 ||
      first + n > output.out)
    throw std::invalid_argument(
        "DecoderState::logit_columns: rows outside the last step or columns outside "
        "the output layer");
  // Views of the columns: no copy, and each logit the same arithmetic as in the whole layer. Within a
  // thread's share of the search the products run on that thread alone (core/thread_team.h).
  const float* x = x_.data() + static_cast<size_t>(first_row) * d_;
  const float* bias = output.bias ? output.bias + first : nullptr;
  if (output.int8) {
    core::int8_linear(output_rows_, first_row, n_rows, output.int8->columns(first, n), bias, out);
  } else if (output.packed) {
    core::packed_linear(x, n_rows, output.packed->columns(first, n), bias, out);
  } else {
    throw std::logic_error("DecoderState::logit_columns: an output layer neither packed nor int8");
  }
}

int DecoderState::logit_rows() const { return model_.weights().output.int8 ? kLogitRows / 4 : kLogitRows; }

}  // namespace models
