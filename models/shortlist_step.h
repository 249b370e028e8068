// Decoding over a batch's shortlist (models/shortlist.h): the output layer's rows of the kept target
// pieces gathered once per batch, and a DecoderStep whose vocabulary is those pieces. The search works on
// indices into the sorted kept ids, so its lowest-index tie-break is still the lowest id's; tokens fed
// back are mapped to the model's ids here, and hypotheses back by expand_tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/search.h"
#include "models/decoder_state.h"
#include "models/transformer_weights.h"

namespace models {

// The output projection restricted to `ids` (sorted, distinct, each below full.out): row i of its weights
// is row ids[i] of the full one, packed or quantized like it, so a kept column's logit is the full
// layer's (bit-identical on the packed and int8 kernels).
class ShortlistOutput {
 public:
  ShortlistOutput(const Linear& full, std::vector<int32_t> ids);
  const Linear& linear() const { return linear_; }
  const std::vector<int32_t>& ids() const { return ids_; }
  // The index of model id `id` among the kept ids, or -1.
  int32_t index_of(int32_t id) const;

 private:
  std::vector<int32_t> ids_;
  std::vector<float> weight_, bias_;  // [ids, in], [ids]: gathered rows (unpacked weights), bias
  std::unique_ptr<core::PackedMatrix> packed_;
  std::unique_ptr<core::Int8Matrix> int8_;
  Linear linear_;
};

class ShortlistStep : public core::DecoderStep {
 public:
  // max_rows: the most rows a step feeds (the state's).
  ShortlistStep(DecoderState& full, const ShortlistOutput& output, int max_rows);
  int vocab_size() const override { return static_cast<int>(output_.ids().size()); }
  void start(int n_sentences) override { full_.start(n_sentences); }
  void select_rows(const std::vector<int>& src_rows) override { full_.select_rows(src_rows); }
  void step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
            int position) override;
  void logits(int first_row, int n_rows, float* out) override;
  int logit_rows() const override { return full_.logit_rows(); }
  bool offers_logit_columns() const override { return DecoderState::offers_columns(output_.linear()); }
  void logit_columns(int first_row, int n_rows, int first, int n, float* out) override {
    full_.project_logit_columns(output_.linear(), first_row, n_rows, first, n, out);
  }

 private:
  DecoderState& full_;
  const ShortlistOutput& output_;
  std::vector<int32_t> model_tokens_;  // capacity max_rows: steps allocate nothing
};

// The search options in the shortlist's indices: EOS, the start token and every prefix and constraint token
// must be kept (throws std::invalid_argument otherwise); banned ids not kept are dropped (never generated
// anyway).
core::SearchOptions shortlist_search_options(const core::SearchOptions& options,
                                             const ShortlistOutput& output);

// Hypotheses' tokens from shortlist indices back to model ids.
void expand_tokens(const ShortlistOutput& output, std::vector<std::vector<core::Hypothesis>>& hypotheses);

}  // namespace models
