#include "core/sampling.h"

#include <algorithm>
#include <cmath>

namespace core {

uint64_t RandomStream::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double RandomStream::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

RandomStream sample_stream(uint64_t seed, uint64_t sentence_key, int sample) {
  // Each input passes through the mixer, so neighbouring keys and samples give unrelated streams.
  RandomStream mix(seed);
  uint64_t state = mix.next();
  state = RandomStream(state ^ sentence_key).next();
  state = RandomStream(state ^ static_cast<uint64_t>(sample)).next();
  return RandomStream(state);
}

TokenSampler::TokenSampler(int vocab_size, const SamplingOptions& options)
    : vocab_size_(vocab_size), options_(options) {
  candidates_.reserve(vocab_size);
}

int32_t TokenSampler::draw(const float* log_probs, double shift, RandomStream& random) {
  const double inverse_temperature = 1.0 / options_.temperature;
  candidates_.clear();
  for (int32_t token = 0; token < vocab_size_; ++token) {
    const double value = log_probs[token] - shift;
    if (value == -INFINITY) continue;
    candidates_.push_back({static_cast<float>(value * inverse_temperature), token});
  }
  if (candidates_.empty()) return 0;  // the search never asks: some id is always possible
  const auto more_likely = [](const Weighted& a, const Weighted& b) {
    return a.weight > b.weight || (a.weight == b.weight && a.token < b.token);
  };
  size_t kept = candidates_.size();
  if (options_.top_k > 0 && static_cast<size_t>(options_.top_k) < kept) {
    kept = options_.top_k;
    std::partial_sort(candidates_.begin(), candidates_.begin() + kept, candidates_.end(), more_likely);
  } else if (options_.top_p < 1.0f) {
    std::sort(candidates_.begin(), candidates_.end(), more_likely);
  }
  // Probabilities of the kept tokens, relative to the most likely one (exp never overflows).
  float max_weight = candidates_[0].weight;
  for (size_t i = 1; i < kept; ++i) max_weight = std::max(max_weight, candidates_[i].weight);
  double total = 0.0;
  for (size_t i = 0; i < kept; ++i)
    total += std::exp(static_cast<double>(candidates_[i].weight - max_weight));
  if (options_.top_p < 1.0f) {
    // Nucleus: the candidates are sorted here; keep tokens while the mass before them is below p.
    double mass = 0.0;
    size_t nucleus = 0;
    while (nucleus < kept && (nucleus == 0 || mass < options_.top_p * total)) {
      mass += std::exp(static_cast<double>(candidates_[nucleus].weight - max_weight));
      ++nucleus;
    }
    kept = nucleus;
    total = mass;
  }
  const double target = random.uniform() * total;
  double mass = 0.0;
  for (size_t i = 0; i < kept; ++i) {
    mass += std::exp(static_cast<double>(candidates_[i].weight - max_weight));
    if (target < mass) return candidates_[i].token;
  }
  return candidates_[kept - 1].token;  // rounding left the target at the very top
}

}  // namespace core
