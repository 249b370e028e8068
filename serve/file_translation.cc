#include "serve/file_translation.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "core/text_lines.h"
#include "core/utf8_text.h"
#include "documents/translate_document.h"
#include "serve/api_error.h"
#include "serve/document_worker.h"
#include "serve/request_glossary.h"
#include "serve/source_detection.h"

namespace serve {

namespace {

// 128 bits from the kernel's CSPRNG: a download URL is a capability, so it must not be guessable from
// the tokens handed out before it.
std::string random_token() {
  unsigned char bits[16];
  size_t got = 0;
  while (got < sizeof bits) {
    const ssize_t n = getrandom(bits + got, sizeof bits - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  static const char* const kHex = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bits) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

std::string field(const nlohmann::json& fields, const char* name, const std::string& fallback) {
  const auto it = fields.find(name);
  if (it == fields.end()) return fallback;
  if (!it->is_string()) throw ApiError(400, std::string("Invalid request: ") + name + " must be a string");
  return it->get<std::string>();
}

// A text file as `nmt translate -i` reads it: one translation per line, LF between them.
std::string translate_text_file(TranslationService& service, const LanguagePair& pair,
                                const pipeline::TranslateOptions& options, const std::string& bytes) {
  if (!core::is_valid_utf8(bytes)) throw ApiError(400, "Invalid request: the file is not UTF-8 text");
  service.check_characters({bytes});
  std::vector<std::string> lines = core::split_lines(bytes);
  const bool final_newline = !lines.empty() && lines.back().empty() && lines.size() > 1;
  if (final_newline) lines.pop_back();
  std::vector<std::string> out;
  for (const pipeline::Translation& t : service.translate(pair, options, lines)) out.push_back(t.texts[0]);
  return join_lines(out) + (final_newline ? "\n" : "");
}

}  // namespace

std::string FileStore::put(std::string filename, std::string bytes) {
  StoredFile file{random_token(), std::move(filename), std::move(bytes), std::chrono::steady_clock::now()};
  const std::string token = file.token;
  const std::lock_guard<std::mutex> lock(mutex_);
  drop_expired();
  files_.push_back(std::move(file));
  while (files_.size() > kMaxFiles) files_.pop_front();
  return token;
}

std::optional<StoredFile> FileStore::take(const std::string& token) {
  const std::lock_guard<std::mutex> lock(mutex_);
  drop_expired();
  for (auto it = files_.begin(); it != files_.end(); ++it) {
    if (it->token != token) continue;
    StoredFile file = std::move(*it);
    files_.erase(it);
    return file;
  }
  return std::nullopt;
}

void FileStore::drop_expired() {
  const auto now = std::chrono::steady_clock::now();
  while (!files_.empty() && now - files_.front().stored > kTimeToLive) files_.pop_front();
}

std::string translated_file_name(const std::string& filename, const std::string& target) {
  const size_t slash = filename.find_last_of("/\\");
  const size_t dot = filename.rfind('.');
  if (dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot < slash + 2))
    return filename + "." + target;
  return filename.substr(0, dot) + "." + target + filename.substr(dot);
}

const std::vector<std::string>& supported_file_extensions() {
  static const std::vector<std::string> extensions = [] {
    std::vector<std::string> list = {".txt"};
    for (const auto& entry : documents::document_extensions()) list.push_back("." + entry.first);
    return list;
  }();
  return extensions;
}

const std::string& supported_file_types() {
  static const std::string types = [] {
    std::string list;
    for (const std::string& ext : supported_file_extensions()) list += (list.empty() ? "" : ", ") + ext;
    return list;
  }();
  return types;
}

nlohmann::json translate_file_response(TranslationService& service, FileStore& store,
                                       const std::string& filename, const std::string& bytes,
                                       const nlohmann::json& fields, const std::string& base_url,
                                       const std::string& url_suffix) {
  const std::string ext = documents::path_extension(filename);
  const documents::DocumentFormat format = documents::format_for_path(filename);
  if (format == documents::DocumentFormat::kText && ext != "txt")
    throw ApiError(400, "Invalid request: file type " + (ext.empty() ? std::string("(none)") : "." + ext) +
                            " is not supported (" + supported_file_types() + ")");
  const std::string source = field(fields, "source", "auto");
  const std::string target = field(fields, "target", "");
  if (target.empty()) throw ApiError(400, "Invalid request: missing target parameter");
  DetectedLanguage detected;
  // A text file's language is told as /detect tells it; a document's is not told from its raw bytes, so
  // "auto" takes the first pair into target.
  const bool is_text = format == documents::DocumentFormat::kText && core::is_valid_utf8(bytes);
  const LanguagePair& pair = same_code(source, "auto")
                                 ? auto_pair(service.models(), is_text ? bytes : "", target, detected)
                                 : service.pair(source, target);
  pipeline::TranslateOptions options = glossary_options(pair.options, service.options(), fields);
  options.replicas = service.options().replicas;  // a document runs alone: the server's split of the cores
  std::string out;
  if (format == documents::DocumentFormat::kText) {
    out = translate_text_file(service, pair, options, bytes);
  } else {
    service.check_document_bytes(bytes.size());
    // Owned by the task: a task still running when the request times out must not write into this frame.
    auto result = std::make_shared<std::string>();
    const auto deadline = service.deadline_from_now();
    service.run_alone([result, pair, options, format, bytes, filename, deadline] {
      *result = run_in_worker(
          [&] {
            std::vector<std::string> warnings;
            // The package bound that fits the child's memory, as `nmt translate --max-memory` sets it.
            return documents::translate_document(*pair.translator, options, format, bytes, filename,
                                                 &warnings,
                                                 documents::max_inflated_for(kDocumentWorkerMemory));
          },
          deadline);
    });
    out = std::move(*result);
  }
  const std::string token = store.put(translated_file_name(filename, pair.target), std::move(out));
  return {{"translatedFileUrl", base_url + "/download_file/" + token + url_suffix}};
}

}  // namespace serve
