#include "api/forced_decoding.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/threads.h"
#include "models/decoder_state.h"

namespace api {

namespace {

// What the search bans and whether it renormalises after banning (pipeline/translate_batches.cc).
struct SoftmaxRule {
  std::vector<int32_t> banned;
  bool renormalize = true;
};

SoftmaxRule softmax_rule(const models::ModelDescription& d) {
  SoftmaxRule rule;
  rule.renormalize = d.decoding.renormalize;
  rule.banned = {d.tokens.pad};
  if (d.tokens.decoder_start != d.tokens.eos && d.tokens.decoder_start != d.tokens.pad)
    rule.banned.push_back(d.tokens.decoder_start);
  if (d.decoding.ban_unk) rule.banned.push_back(d.tokens.unk);
  return rule;
}

// log P(wanted) from one row of logits, as the search's log_softmax gives it.
float log_prob_of(std::vector<float> row, int32_t wanted, const SoftmaxRule& rule) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  if (rule.renormalize) {
    for (int32_t id : rule.banned) row[id] = minus_inf;
  }
  const float max = *std::max_element(row.begin(), row.end());
  double sum = 0;
  for (float x : row) sum += std::exp(static_cast<double>(x) - max);
  if (!rule.renormalize && std::find(rule.banned.begin(), rule.banned.end(), wanted) != rule.banned.end())
    return minus_inf;
  return static_cast<float>(static_cast<double>(row[wanted]) - max - std::log(sum));
}

// The pairs [first, last) scored in one batch: every row fed its target, EOS after it.
void score_batch(const pipeline::Translator& translator, const std::vector<std::vector<int32_t>>& sources,
                 const std::vector<std::vector<int32_t>>& targets, size_t first, size_t last,
                 std::vector<nmt::Score>& scores) {
  const models::Transformer& model = translator.model();
  const models::ModelDescription& d = model.description();
  const SoftmaxRule rule = softmax_rule(d);
  const std::vector<std::vector<int32_t>> batch(sources.begin() + first, sources.begin() + last);
  const int n = static_cast<int>(batch.size());
  size_t longest = 0;
  for (size_t i = first; i < last; ++i) longest = std::max(longest, targets[i].size());
  const int steps = static_cast<int>(longest) + 1;  // the target's tokens, then EOS
  const models::EncodedBatch encoded = model.encode(batch);
  models::DecoderState state(model, encoded, n, steps);
  state.start(n);
  std::vector<int> sentence_of_row(n);
  for (int r = 0; r < n; ++r) sentence_of_row[r] = r;
  const int vocab = state.vocab_size();
  std::vector<float> logits;
  std::vector<int32_t> tokens(n);
  for (int position = 0; position < steps; ++position) {
    for (int r = 0; r < n; ++r) {
      const std::vector<int32_t>& target = targets[first + r];
      const size_t fed = static_cast<size_t>(position);  // tokens before this position
      tokens[r] = position == 0          ? d.tokens.decoder_start
                  : fed <= target.size() ? target[fed - 1]
                                         : d.tokens.eos;
    }
    state.step(tokens, sentence_of_row, position);
    for (int row = 0; row < n; row += state.logit_rows()) {
      const int rows = std::min(state.logit_rows(), n - row);
      logits.resize(static_cast<size_t>(rows) * vocab);
      state.logits(row, rows, logits.data());
      for (int k = 0; k < rows; ++k) {
        const std::vector<int32_t>& target = targets[first + row + k];
        if (static_cast<size_t>(position) > target.size()) continue;  // done: only padding
        const int32_t wanted =
            static_cast<size_t>(position) < target.size() ? target[position] : d.tokens.eos;
        const float* begin = logits.data() + static_cast<size_t>(k) * vocab;
        scores[first + row + k].log_probs.push_back(
            log_prob_of(std::vector<float>(begin, begin + vocab), wanted, rule));
      }
    }
  }
}

}  // namespace

std::vector<nmt::Score> score_pairs(const pipeline::Translator& translator,
                                    const pipeline::TranslateOptions& o,
                                    const std::vector<std::string>& sources,
                                    const std::vector<std::string>& targets) {
  if (sources.size() != targets.size())
    throw core::UsageError("score: " + std::to_string(sources.size()) + " sources but " +
                           std::to_string(targets.size()) + " targets");
  const int max_positions = translator.model().config().max_positions;
  std::vector<std::vector<int32_t>> source_ids, target_ids;
  std::vector<nmt::Score> scores(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    source_ids.push_back(translator.source_ids(sources[i], o));
    target_ids.push_back(translator.tokenizer().encode_target(targets[i]));
    if (static_cast<int>(source_ids.back().size()) > max_positions ||
        static_cast<int>(target_ids.back().size()) + 1 > max_positions)
      throw core::UsageError("score: pair " + std::to_string(i) + " is longer than the model's " +
                             std::to_string(max_positions) + " positions");
    scores[i].tokens = translator.tokenizer().target_pieces(target_ids.back());
    scores[i].tokens.push_back("</s>");
  }
  const size_t batch = static_cast<size_t>(std::max(1, o.batch_size));
  const int n_batches = static_cast<int>((sources.size() + batch - 1) / batch);
  core::parallel_for(n_batches, [&](int b) {
    const size_t first = static_cast<size_t>(b) * batch;
    score_batch(translator, source_ids, target_ids, first, std::min(sources.size(), first + batch), scores);
  });
  for (nmt::Score& s : scores) {
    double sum = 0;
    for (float p : s.log_probs) sum += p;
    s.log_prob = static_cast<float>(sum);
    s.normalized =
        static_cast<float>(sum / std::pow(static_cast<double>(s.log_probs.size()), o.length_penalty));
  }
  return scores;
}

}  // namespace api
