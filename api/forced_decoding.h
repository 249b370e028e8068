// Forced decoding: a given target scored under the model, token by token, as CTranslate2's score_batch and
// marian-scorer do. The search's own log-probabilities (the same softmax, the same banned ids) without its
// loop guards or a shortlist, so a beam's best hypothesis scores here as the beam scored it.
#pragma once

#include <string>
#include <vector>

#include "nmt/results.h"
#include "pipeline/translate_options.h"
#include "pipeline/translator.h"

namespace api {

// One Score per (sources[i], targets[i]), each pair one sentence; batches of options.batch_size pairs
// spread over core::num_threads() threads. normalized = log_prob / tokens^options.length_penalty.
// Throws core::UsageError for a target longer than the model's positions.
std::vector<nmt::Score> score_pairs(const pipeline::Translator& translator,
                                    const pipeline::TranslateOptions& options,
                                    const std::vector<std::string>& sources,
                                    const std::vector<std::string>& targets);

}  // namespace api
