#include "models/shortlist_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace models {

ShortlistOutput::ShortlistOutput(const Linear& full, std::vector<int32_t> ids) : ids_(std::move(ids)) {
  const int n = static_cast<int>(ids_.size()), in = full.in;
  for (size_t i = 0; i < ids_.size(); ++i) {
    if (ids_[i] < 0 || ids_[i] >= full.out || (i > 0 && ids_[i] <= ids_[i - 1]))
      throw std::invalid_argument("ShortlistOutput: ids must be sorted, distinct and below " +
                                  std::to_string(full.out));
  }
  linear_.out = n;
  linear_.in = in;
  if (full.bias) {
    for (int32_t id : ids_) bias_.push_back(full.bias[id]);
    linear_.bias = bias_.data();
  }
  if (full.int8) {
    // The int8 rows and their scales as they are: quantizing again would change the logits.
    int8_ = std::make_unique<core::Int8Matrix>(n, in);
    int8_->set_input_scaling(full.int8->input_scaling());
    std::vector<int8_t> row(static_cast<size_t>(in));
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < in; ++k) row[k] = full.int8->weight(ids_[i], k);
      int8_->pack_rows(i, 1, row.data(), full.int8->scales() + ids_[i]);
      if (full.int8->multipliers()) int8_->set_multipliers(i, 1, full.int8->multipliers()[ids_[i]]);
    }
    linear_.int8 = int8_.get();
    return;
  }
  if (!full.weight && !full.packed)
    throw std::logic_error("ShortlistOutput: an output layer without weights");
  weight_.resize(static_cast<size_t>(n) * in);
  for (int i = 0; i < n; ++i) {
    float* row = weight_.data() + static_cast<size_t>(i) * in;
    if (full.weight)
      std::copy(full.weight + static_cast<size_t>(ids_[i]) * in,
                full.weight + static_cast<size_t>(ids_[i] + 1) * in, row);
    else
      full.packed->copy_row(ids_[i], row);  // f16 panels widen exactly: the same products as f32 panels
  }
  if (full.packed) {
    packed_ = std::make_unique<core::PackedMatrix>(weight_.data(), n, in);
    linear_.packed = packed_.get();
    std::vector<float>().swap(weight_);
  } else {
    linear_.weight = weight_.data();
  }
}

int32_t ShortlistOutput::index_of(int32_t id) const {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  return it != ids_.end() && *it == id ? static_cast<int32_t>(it - ids_.begin()) : -1;
}

ShortlistStep::ShortlistStep(DecoderState& full, const ShortlistOutput& output, int max_rows)
    : full_(full), output_(output) {
  model_tokens_.reserve(static_cast<size_t>(max_rows));
}

void ShortlistStep::step(const std::vector<int32_t>& tokens, const std::vector<int>& sentence_of_row,
                         int position) {
  model_tokens_.clear();
  for (int32_t t : tokens) model_tokens_.push_back(output_.ids()[t]);
  full_.step(model_tokens_, sentence_of_row, position);
}

void ShortlistStep::logits(int first_row, int n_rows, float* out) {
  full_.project_logits(output_.linear(), first_row, n_rows, out);
}

core::SearchOptions shortlist_search_options(const core::SearchOptions& options,
                                             const ShortlistOutput& output) {
  const auto kept = [&](int32_t id, const char* what) {
    const int32_t index = output.index_of(id);
    if (index < 0)
      throw std::invalid_argument(std::string("shortlist lacks the ") + what + " id " + std::to_string(id));
    return index;
  };
  core::SearchOptions o = options;
  o.eos_id = kept(options.eos_id, "end-of-sentence");
  o.start_id = kept(options.start_id, "decoder start");
  o.banned.clear();
  for (int32_t id : options.banned) {
    const int32_t index = output.index_of(id);
    if (index >= 0) o.banned.push_back(index);
  }
  for (auto& prefix : o.prefixes) {
    for (int32_t& id : prefix) id = kept(id, "forced prefix");
  }
  for (auto& list : o.constraints) {
    for (core::Constraint& c : list) {
      for (auto& form : c.forms) {
        for (int32_t& id : form) id = kept(id, "constraint");
      }
    }
  }
  return o;
}

void expand_tokens(const ShortlistOutput& output, std::vector<std::vector<core::Hypothesis>>& hypotheses) {
  for (auto& sentence : hypotheses) {
    for (core::Hypothesis& h : sentence) {
      for (int32_t& t : h.tokens) t = output.ids()[t];
    }
  }
}

}  // namespace models
