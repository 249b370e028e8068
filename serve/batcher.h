// One translator worker for every client: requests that arrive within a short window and decode alike
// are translated in one Translator::translate call, which spreads them over the --threads budget.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/translator.h"
#include "serve/model_set.h"

namespace serve {

struct BatchJob {
  LanguagePair pair;  // a loaded copy: its lease keeps the model loaded until the job is done
  pipeline::TranslateOptions options;            // resolved and checked against the pair's model
  std::string options_key;                       // jobs of one key and pair share a batch
  std::vector<std::string> lines;                // one sentence or several each, no line breaks
  std::vector<pipeline::LineControls> controls;  // empty, or one per line
  int estimated_tokens = 0;
  std::chrono::steady_clock::time_point arrived;
  std::promise<std::vector<pipeline::Translation>> done;
  std::atomic<bool> abandoned{false};  // its client gave up: skipped if not started
  // Instead of lines: work that needs the translator's threads to itself (an attention heatmap), run
  // alone in its turn; `done` then holds no translations.
  std::function<void()> task;
};

class Batcher {
 public:
  Batcher(std::chrono::milliseconds wait, int max_batch_tokens);
  ~Batcher();  // translates what is queued, then joins the worker
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Queues a job; its future holds one Translation per line (or the translator's exception). With
  // `max_queued` jobs waiting already, queues nothing and returns an invalid future.
  std::future<std::vector<pipeline::Translation>> submit(std::shared_ptr<BatchJob> job,
                                                         size_t max_queued = SIZE_MAX);

  // Requests merged into a batch with others so far (for /health and the tests).
  uint64_t merged_requests() const { return merged_requests_; }

 private:
  void run();
  // Takes the oldest job and the queued jobs that decode like it, up to the token budget.
  std::vector<std::shared_ptr<BatchJob>> take_batch();

  const std::chrono::milliseconds wait_;
  const int max_batch_tokens_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<BatchJob>> queue_;
  int queued_tokens_ = 0;
  bool stopping_ = false;
  std::atomic<uint64_t> merged_requests_{0};
  std::thread worker_;
};

// The output-changing options of the table as one string (front/output_options_key.h): jobs of one key
// decode alike, so they share a batch.
std::string options_key(const pipeline::TranslateOptions& options);

// A rough source-token count (4 bytes a piece) for the batch budget, before tokenizing.
int estimate_tokens(const std::vector<std::string>& lines);

}  // namespace serve
