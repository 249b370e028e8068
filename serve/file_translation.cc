#include "serve/file_translation.h"

#include <memory>
#include <random>

#include "core/error.h"
#include "core/utf8_text.h"
#include "documents/translate_document.h"
#include "serve/api_error.h"
#include "serve/source_detection.h"

namespace serve {

namespace {

std::string random_token() {
  static std::mutex mutex;
  static std::mt19937_64 rng{std::random_device{}()};
  const std::lock_guard<std::mutex> lock(mutex);
  static const char* const kHex = "0123456789abcdef";
  std::string token;
  for (int part = 0; part < 2; ++part) {
    uint64_t bits = rng();
    for (int i = 0; i < 16; ++i, bits >>= 4) token += kHex[bits & 15];
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
                                const std::string& bytes) {
  if (!core::is_valid_utf8(bytes)) throw ApiError(400, "Invalid request: the file is not UTF-8 text");
  service.check_characters({bytes});
  std::vector<std::string> lines = split_lines(bytes);
  const bool final_newline = !lines.empty() && lines.back().empty() && lines.size() > 1;
  if (final_newline) lines.pop_back();
  std::vector<std::string> out;
  for (const pipeline::Translation& t : service.translate(pair, pair.options, lines))
    out.push_back(t.texts[0]);
  return join_lines(out) + (final_newline ? "\n" : "");
}

}  // namespace

std::string FileStore::put(std::string filename, std::string bytes) {
  StoredFile file{random_token(), std::move(filename), std::move(bytes)};
  const std::string token = file.token;
  const std::lock_guard<std::mutex> lock(mutex_);
  files_.push_back(std::move(file));
  while (files_.size() > kMaxFiles) files_.pop_front();
  return token;
}

std::optional<StoredFile> FileStore::get(const std::string& token) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const StoredFile& f : files_) {
    if (f.token == token) return f;
  }
  return std::nullopt;
}

const std::string& supported_file_types() {
  static const std::string types = [] {
    std::string list = ".txt";
    for (const auto& entry : documents::document_extensions()) list += ", ." + entry.first;
    return list;
  }();
  return types;
}

nlohmann::json translate_file_response(TranslationService& service, FileStore& store,
                                       const std::string& filename, const std::string& bytes,
                                       const nlohmann::json& fields, const std::string& base_url) {
  const std::string ext = documents::path_extension(filename);
  const documents::DocumentFormat format = documents::format_for_path(filename);
  if (format == documents::DocumentFormat::kText && ext != "txt")
    throw ApiError(400, "Invalid request: file type " + (ext.empty() ? std::string("(none)") : "." + ext) +
                            " is not supported (" + supported_file_types() + ")");
  const std::string source = field(fields, "source", "auto");
  const std::string target = field(fields, "target", "");
  if (target.empty()) throw ApiError(400, "Invalid request: missing target parameter");
  DetectedLanguage detected;
  // A document's language is not told from its raw bytes: "auto" takes the first pair into target.
  const LanguagePair* chosen = source == "auto" ? auto_pair(service.models(), "", target, detected) : nullptr;
  const LanguagePair& pair = chosen != nullptr ? *chosen : service.pair(source, target);
  std::string out;
  if (format == documents::DocumentFormat::kText) {
    out = translate_text_file(service, pair, bytes);
  } else {
    // Owned by the task: a task still running when the request times out must not write into this frame.
    auto result = std::make_shared<std::string>();
    service.run_alone([result, &pair, format, bytes, filename] {
      std::vector<std::string> warnings;
      try {
        *result =
            documents::translate_document(*pair.translator, pair.options, format, bytes, filename, &warnings);
      } catch (const core::UsageError&) {
        throw;
      } catch (const core::Error& e) {
        throw ApiError(400, std::string("Invalid request: ") + e.what());
      }
    });
    out = std::move(*result);
  }
  const std::string token = store.put(filename, std::move(out));
  return {{"translatedFileUrl", base_url + "/download_file/" + token}};
}

}  // namespace serve
