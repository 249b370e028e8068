#include "serve/batcher.h"

#include <algorithm>
#include <iterator>

#include "front/output_options_key.h"

namespace serve {

Batcher::Batcher(std::chrono::milliseconds wait, int max_batch_tokens)
    : wait_(wait), max_batch_tokens_(max_batch_tokens), worker_([this] { run(); }) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

std::future<std::vector<pipeline::Translation>> Batcher::submit(std::shared_ptr<BatchJob> job,
                                                                size_t max_queued) {
  job->arrived = std::chrono::steady_clock::now();
  std::future<std::vector<pipeline::Translation>> result = job->done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.size() >= max_queued) return {};
    queued_tokens_ += job->estimated_tokens;
    queue_.push_back(std::move(job));
  }
  wake_.notify_all();
  return result;
}

std::vector<std::shared_ptr<BatchJob>> Batcher::take_batch() {
  std::vector<std::shared_ptr<BatchJob>> batch;
  const BatchJob& first = *queue_.front();
  const pipeline::Translator* translator = first.pair.translator;
  const std::string key = first.options_key;
  int tokens = 0;
  if (first.task) {  // alone
    queued_tokens_ -= first.estimated_tokens;
    if (!first.abandoned) batch.push_back(queue_.front());
    queue_.pop_front();
    return batch;
  }
  for (auto it = queue_.begin(); it != queue_.end();) {
    BatchJob& job = **it;
    if (job.task) {
      ++it;
      continue;
    }
    const bool fits = batch.empty() || tokens + job.estimated_tokens <= max_batch_tokens_;
    if (job.pair.translator == translator && job.options_key == key && fits) {
      tokens += job.estimated_tokens;
      queued_tokens_ -= job.estimated_tokens;
      if (!job.abandoned) batch.push_back(*it);
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  return batch;
}

void Batcher::run() {
  for (;;) {
    std::vector<std::shared_ptr<BatchJob>> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      // The oldest job waits out its window for company, unless the budget is full already.
      const auto deadline = queue_.front()->arrived + wait_;
      wake_.wait_until(lock, deadline, [this] { return stopping_ || queued_tokens_ >= max_batch_tokens_; });
      batch = take_batch();
    }
    if (batch.empty()) continue;  // only abandoned jobs
    if (batch.front()->task) {
      try {
        batch.front()->task();
        batch.front()->done.set_value({});
      } catch (...) {
        batch.front()->done.set_exception(std::current_exception());
      }
      continue;
    }
    if (batch.size() > 1) merged_requests_ += batch.size();
    std::vector<std::string> lines;
    std::vector<pipeline::LineControls> controls;
    bool any_controls = false;
    for (const auto& job : batch) {
      lines.insert(lines.end(), job->lines.begin(), job->lines.end());
      any_controls = any_controls || !job->controls.empty();
    }
    if (any_controls) {
      for (const auto& job : batch) {
        if (job->controls.empty()) {
          controls.resize(controls.size() + job->lines.size());
        } else {
          controls.insert(controls.end(), job->controls.begin(), job->controls.end());
        }
      }
    }
    try {
      std::vector<pipeline::Translation> out = batch.front()->pair.translator->translate(
          lines, batch.front()->options, nullptr, any_controls ? &controls : nullptr);
      size_t at = 0;
      for (const auto& job : batch) {
        std::vector<pipeline::Translation> mine(
            std::make_move_iterator(out.begin() + at),
            std::make_move_iterator(out.begin() + at + job->lines.size()));
        at += job->lines.size();
        job->done.set_value(std::move(mine));
      }
    } catch (...) {
      for (const auto& job : batch) job->done.set_exception(std::current_exception());
    }
  }
}

std::string options_key(const pipeline::TranslateOptions& options) {
  return front::output_options_key(options, front::OutputShape{});
}

int estimate_tokens(const std::vector<std::string>& lines) {
  size_t bytes = 0;
  for (const std::string& line : lines) bytes += line.size() / 4 + 2;  // + EOS and a short word
  return static_cast<int>(std::min<size_t>(bytes, 1 << 30));
}

}  // namespace serve
