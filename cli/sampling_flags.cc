#include "cli/sampling_flags.h"

#include <limits>

#include "cli/usage.h"

namespace cli {

void add_sampling_flags(CLI::App& cmd, TranslateCommandOptions& o) {
  core::SamplingOptions& s = o.flags.sampling;
  int_in_range(cmd.add_option_function<int>(
                   "--sampling-topk", [&s](int k) { s.enabled = true, s.top_k = k; },
                   "Sample each token from the K most likely (0 = the whole vocabulary; 1 = greedy)"),
               0, 1 << 24);
  number_in_range(cmd.add_option_function<float>(
                      "--sampling-topp", [&s](float p) { s.enabled = true, s.top_p = p; },
                      "Sample from the fewest most likely tokens whose probabilities reach P (nucleus; "
                      "above 0)"),
                  0.0, 1.0);
  number_in_range(cmd.add_option_function<float>(
                      "--sampling-temperature", [&s](float t) { s.enabled = true, s.temperature = t; },
                      "Sample from softmax(logits / T): T < 1 sharpens, T > 1 flattens (above 0)"),
                  0.0, 100.0);
  int_in_range(cmd.add_option_function<long>(
                   "--seed",
                   [&o](long seed) {
                     o.flags.sampling.seed = static_cast<uint64_t>(seed);
                     o.seed_given = true;
                   },
                   "Random seed of sampling: the same seed, model, input and flags give the same output, "
                   "whatever --threads and --batch-size (default: a random seed)"),
               0, std::numeric_limits<long>::max());
}

}  // namespace cli
