#include "serve/translation_service.h"

#include <chrono>

#include "serve/api_error.h"

namespace serve {

namespace {

size_t code_points(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xc0) != 0x80;
  return n;
}

}  // namespace

TranslationService::TranslationService(const ModelSet& models, const ServeOptions& options)
    : models_(models),
      options_(options),
      batcher_(std::chrono::milliseconds(options.batch_wait_ms), options.max_batch_tokens) {}

LanguagePair TranslationService::pair(const std::string& source, const std::string& target) const {
  if (const LanguagePair* p = models_.find(source, target)) return models_.use(*p);
  std::string served;
  for (const LanguagePair& p : models_.pairs())
    served += (served.empty() ? "" : ", ") + p.source + "-" + p.target;
  throw ApiError(400, "no model translates " + source + " to " + target + " (served: " + served + ")");
}

void TranslationService::check_characters(const std::vector<std::string>& texts, size_t weight) const {
  size_t n = 0;
  for (const std::string& t : texts) n += code_points(t);
  check_count(n * weight, weight > 1 ? "characters x (1 + alternatives)" : "characters");
}

void TranslationService::check_document_bytes(size_t bytes) const {
  check_count(bytes, "bytes of the document");
}

void TranslationService::check_count(size_t count, const std::string& what) const {
  if (count <= options_.max_chars) return;
  throw ApiError(400, "Invalid request: request (" + std::to_string(count) + ") exceeds text limit (" +
                          std::to_string(options_.max_chars) + "): " + what + ", --max-chars");
}

void TranslationService::check_items(size_t items) const {
  if (items <= options_.max_items) return;
  throw ApiError(400, "Invalid request: q holds " + std::to_string(items) + " texts, more than the " +
                          std::to_string(options_.max_items) + " a request may hold (--max-items)");
}

std::vector<pipeline::Translation> TranslationService::translate(
    const LanguagePair& pair, const pipeline::TranslateOptions& options, std::vector<std::string> lines,
    std::vector<pipeline::LineControls> controls) {
  check_characters(lines);
  try {
    pair.translator->check(options);
  } catch (const pipeline::OptionError& e) {
    throw ApiError(400, e.what());
  }
  auto job = std::make_shared<BatchJob>();
  job->pair = pair;
  job->options = options;
  job->options.replicas = options_.replicas;  // the server's split of the cores, whatever the request
  job->options_key = options_key(options);
  job->estimated_tokens = estimate_tokens(lines);
  job->lines = std::move(lines);
  job->controls = std::move(controls);
  return wait(std::move(job));
}

void TranslationService::run_alone(std::function<void()> work) {
  auto job = std::make_shared<BatchJob>();
  job->task = std::move(work);
  wait(std::move(job));
}

std::vector<pipeline::Translation> TranslationService::wait(std::shared_ptr<BatchJob> job) {
  std::future<std::vector<pipeline::Translation>> result = batcher_.submit(job, options_.max_queued_requests);
  if (!result.valid()) {
    throw ApiError(429, "too many requests waiting (" + std::to_string(options_.max_queued_requests) +
                            ", --max-queue): slow down and retry");
  }
  if (result.wait_for(std::chrono::seconds(options_.request_timeout_s)) != std::future_status::ready) {
    job->abandoned = true;
    throw ApiError(503, "the server is busy: the request was not translated within " +
                            std::to_string(options_.request_timeout_s) +
                            " s (--request-timeout); retry later");
  }
  try {
    return result.get();
  } catch (const core::UsageError& e) {  // e.g. a sentence over the model's positions
    throw ApiError(400, e.what());
  }
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  return text;
}

}  // namespace serve
