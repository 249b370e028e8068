// Between the HTTP handlers and the batcher: checks a request's text against the limits, cuts it into
// lines as `nmt translate` reads them, queues it and waits for it within the request's time bound.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "serve/batcher.h"
#include "serve/model_set.h"
#include "serve/serve_options.h"

namespace serve {

class TranslationService {
 public:
  TranslationService(const ModelSet& models, const ServeOptions& options);

  const ModelSet& models() const { return models_; }
  const ServeOptions& options() const { return options_; }

  // The pair source -> target, loaded (ModelSet::use), or ApiError 400 naming what is not served.
  LanguagePair pair(const std::string& source, const std::string& target) const;

  // One Translation per line (lines hold no line breaks); `controls` empty or one per line. ApiError
  // 400 over the character limit, 429 with --max-queue requests waiting, 503 past the time bound, 400 for
  // options the model refuses.
  std::vector<pipeline::Translation> translate(const LanguagePair& pair,
                                               const pipeline::TranslateOptions& options,
                                               std::vector<std::string> lines,
                                               std::vector<pipeline::LineControls> controls = {});

  // Runs `work` on the translator's worker, alone, within the time bound (an attention heatmap, a document).
  void run_alone(std::function<void()> work);
  // The end of the time bound of a request that starts now (--request-timeout): work that can be stopped
  // (a document's child process) is stopped then.
  std::chrono::steady_clock::time_point deadline_from_now() const {
    return std::chrono::steady_clock::now() + std::chrono::seconds(options_.request_timeout_s);
  }

  // Counts a request's characters (code points), each `weight` times (a request for alternatives decodes
  // 1 + alternatives hypotheses), toward --max-chars; ApiError 400 beyond, as LibreTranslate answers.
  void check_characters(const std::vector<std::string>& texts, size_t weight = 1) const;
  // A document is counted by its bytes before it is parsed: its characters are fewer.
  void check_document_bytes(size_t bytes) const;
  // The texts of an array q toward --max-items, empty ones included; ApiError 400 beyond.
  void check_items(size_t items) const;

  uint64_t merged_requests() const { return batcher_.merged_requests(); }

 private:
  std::vector<pipeline::Translation> wait(std::shared_ptr<BatchJob> job);
  void check_count(size_t count, const std::string& what) const;

  const ModelSet& models_;
  const ServeOptions& options_;
  Batcher batcher_;
};

// Translations put back together with LF, the lines a request's text was cut into (core::split_lines).
std::string join_lines(const std::vector<std::string>& lines);

}  // namespace serve
