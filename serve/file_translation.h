// POST /translate_file and GET /download_file/TOKEN, as LibreTranslate's clients use them: an uploaded file
// is translated by its extension through the formatted-documents path (plain text line by line, as
// `nmt translate -i FILE` would), kept in memory (the server writes nothing to disk) and handed out by the
// URL in the answer.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "serve/translation_service.h"

namespace serve {

struct StoredFile {
  std::string token;
  std::string filename;  // the upload's name, which the download keeps
  std::string bytes;
};

// The latest translated files, oldest dropped first, so memory stays bounded whatever clients upload.
class FileStore {
 public:
  static constexpr std::size_t kMaxFiles = 64;

  // Keeps the file and returns its token (32 random hex digits).
  std::string put(std::string filename, std::string bytes);
  std::optional<StoredFile> get(const std::string& token) const;

 private:
  mutable std::mutex mutex_;
  std::deque<StoredFile> files_;
};

// The file's translation into `store`, and {"translatedFileUrl": base_url + "/download_file/" + token}.
// `fields` holds the form's other parts (source, target). ApiError 400 for an unsupported extension, text
// that is not UTF-8, or a document the readers refuse.
nlohmann::json translate_file_response(TranslationService& service, FileStore& store,
                                       const std::string& filename, const std::string& bytes,
                                       const nlohmann::json& fields, const std::string& base_url);

// The extensions /translate_file takes, for /languages-style answers and errors: ".txt, .html, ...".
const std::string& supported_file_types();

}  // namespace serve
