// Random sampling of the next token (top-k, top-p, temperature) and the reproducible random streams it
// draws from. The search calls it instead of the argmax when SearchOptions::sampling is on.
#pragma once

#include <cstdint>
#include <vector>

namespace core {

struct SamplingOptions {
  bool enabled = false;
  int top_k = 0;             // keep the k most likely tokens; 0 = the whole vocabulary
  float top_p = 1.0f;        // then the fewest whose probabilities sum to at least p (nucleus)
  float temperature = 1.0f;  // divides the log-probabilities before both filters
  uint64_t seed = 0;
};

// SplitMix64: a tiny generator whose whole state is one word, so a stream is cheap to derive from a key.
class RandomStream {
 public:
  explicit RandomStream(uint64_t state = 0) : state_(state) {}
  uint64_t next();
  double uniform();  // in [0, 1), 53 random bits

 private:
  uint64_t state_;
};

// The stream of one sample: a function of the seed, the sentence's key (its place in the input, never its
// batch) and the sample's number, so thread count and batch composition cannot change what it draws.
RandomStream sample_stream(uint64_t seed, uint64_t sentence_key, int sample);

// Draws one token from a row of log-probabilities (value = log_probs[i] - shift; -inf = impossible), as
// Hugging Face's TemperatureLogitsWarper, TopKLogitsWarper and TopPLogitsWarper do in that order, ties
// ranked by lower id. Owns its scratch, so one sampler serves one thread.
class TokenSampler {
 public:
  TokenSampler(int vocab_size, const SamplingOptions& options);
  int32_t draw(const float* log_probs, double shift, RandomStream& random);

 private:
  struct Weighted {
    float weight;  // tempered log-probability
    int32_t token;
  };
  int vocab_size_;
  SamplingOptions options_;
  std::vector<Weighted> candidates_;
};

}  // namespace core
