// POST /translate_file and GET /download_file/TOKEN, as LibreTranslate's clients use them: an uploaded file
// is translated by its extension through the formatted-documents path (plain text line by line, as
// `nmt translate -i FILE` would), kept in memory (the server writes nothing to disk) and handed out by the
// URL in the answer.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "serve/translation_service.h"

namespace serve {

struct StoredFile {
  std::string token;
  std::string filename;  // the download's name: the upload's with the target code ("a.de.docx")
  std::string bytes;
  std::chrono::steady_clock::time_point stored;
};

// The translated files waiting for their download: each is handed out once, and dropped unclaimed after
// kTimeToLive or when kMaxFiles newer ones wait, so memory stays bounded whatever clients upload.
class FileStore {
 public:
  static constexpr std::size_t kMaxFiles = 64;
  static constexpr std::chrono::minutes kTimeToLive{30};

  // Keeps the file and returns its token: 128 bits from getrandom(2) as 32 hex digits.
  std::string put(std::string filename, std::string bytes);
  // The file, removed from the store; nullopt when unknown, downloaded already, or expired.
  std::optional<StoredFile> take(const std::string& token);

 private:
  void drop_expired();  // under mutex_

  std::mutex mutex_;
  std::deque<StoredFile> files_;
};

// "report.docx" in German: "report.de.docx", so saving it beside the original keeps both.
std::string translated_file_name(const std::string& filename, const std::string& target);

// The file's translation into `store`, and {"translatedFileUrl": base_url + "/download_file/" + token +
// url_suffix}.
// `fields` holds the form's other parts (source, target). ApiError 400 for an unsupported extension, text
// that is not UTF-8, or a document the readers refuse.
nlohmann::json translate_file_response(TranslationService& service, FileStore& store,
                                       const std::string& filename, const std::string& bytes,
                                       const nlohmann::json& fields, const std::string& base_url,
                                       const std::string& url_suffix = "");

// The extensions /translate_file takes: {".txt", ".html", ...} (/frontend/settings), and joined as
// ".txt, .html, ..." for errors.
const std::vector<std::string>& supported_file_extensions();
const std::string& supported_file_types();

}  // namespace serve
