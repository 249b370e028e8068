#include "models/convert/argos_package.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <zip.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/regular_file.h"
#include "models/convert/convert_ct2.h"
#include "models/convert/ct2_model_bin.h"
#include "models/convert/json_file.h"
#include "models/convert/zip_member.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

constexpr const char* kArgosExtension = ".argosmodel";

// The package's files nmt reads (its stanza/ or minisbd sentence splitter is not among them), relative to
// the package root, with their size limits.
struct PackageFile {
  const char* name;
  uint64_t max_bytes;
};
const PackageFile kPackageFiles[] = {
    {"metadata.json", convert_detail::kMaxConverterTextBytes},
    {"sentencepiece.model", convert_detail::kMaxConverterTextBytes},
    {"bpe.model", convert_detail::kMaxConverterTextBytes},
    {"model/model.bin", kMaxCt2ModelBytes},
    {"model/config.json", convert_detail::kMaxConverterTextBytes},
    {"model/shared_vocabulary.json", convert_detail::kMaxConverterTextBytes},
    {"model/shared_vocabulary.txt", convert_detail::kMaxConverterTextBytes},
    {"model/source_vocabulary.json", convert_detail::kMaxConverterTextBytes},
    {"model/source_vocabulary.txt", convert_detail::kMaxConverterTextBytes},
    {"model/target_vocabulary.json", convert_detail::kMaxConverterTextBytes},
    {"model/target_vocabulary.txt", convert_detail::kMaxConverterTextBytes},
};

// A private directory for the unpacked files, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/nmt-argos-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw ModelError(pattern + ": cannot create a scratch directory");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Unpacks the files nmt reads from the .argosmodel zip `path` into `dir`. The package root is the
// directory holding metadata.json (Argos zips one top-level directory).
void unpack(const std::string& path, const std::string& dir) {
  struct stat st;
  core::UniqueFd fd;
  try {
    fd = core::open_regular_file(path, "Argos Translate package", &st);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
  int code = 0;
  zip_t* z = zip_fdopen(fd.get(), ZIP_RDONLY, &code);
  if (!z) throw ModelError(path + ": cannot open as a zip archive (.argosmodel): " + zip_error_message(code));
  fd.release();  // the archive owns it now
  struct Closer {
    zip_t* z;
    ~Closer() { zip_discard(z); }
  } closer{z};
  std::string root;
  bool found = false;
  const zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    const std::string name = raw ? raw : "";
    const std::string base = "metadata.json";
    if (name != base && (name.size() <= base.size() ||
                         name.compare(name.size() - base.size() - 1, std::string::npos, "/" + base) != 0))
      continue;
    const std::string prefix = name.substr(0, name.size() - base.size());
    if (prefix.find('/') != prefix.rfind('/') || (found && prefix.size() >= root.size())) continue;
    root = prefix;
    found = true;
  }
  if (!found) throw ModelError(path + ": no metadata.json in the archive: not an Argos Translate package");
  fs::create_directories(dir + "/model");
  for (const PackageFile& f : kPackageFiles) {
    const zip_int64_t index = zip_name_locate(z, (root + f.name).c_str(), ZIP_FL_ENC_RAW);
    if (index < 0) continue;
    std::string bytes;
    read_zip_member(z, static_cast<uint64_t>(index), static_cast<uint64_t>(st.st_size), f.max_bytes,
                    path + ": " + root + f.name, &bytes);
    core::write_file_atomically(dir + "/" + f.name, bytes);
  }
}

LanguagePair read_metadata(const std::string& path, Ct2Context& context) {
  const nlohmann::json j = convert_detail::read_json_object(path, "Argos Translate metadata");
  auto text = [&](const char* key) -> std::string {
    if (!j.contains(key) || j[key].is_null()) return "";
    if (!j[key].is_string()) throw ModelError(path + ": " + key + ": expected a string");
    return j[key].get<std::string>();
  };
  const std::string type = text("type");
  if (!type.empty() && type != "translate")
    throw ModelError(path + ": type '" + type + "' is not a translation package");
  const std::string prefix = text("target_prefix");
  if (!prefix.empty()) {
    throw ModelError(path + ": target_prefix '" + prefix +
                     "' (a token forced at the start of every translation) is not supported");
  }
  LanguagePair languages;
  for (const auto& [key, out] :
       {std::pair{"from_code", &languages.first}, std::pair{"to_code", &languages.second}}) {
    const std::string code = text(key);
    if (!code.empty() && !is_language_tag(code))
      throw ModelError(path + ": " + key + " '" + code + "' is not a language tag");
    *out = code;
  }
  context.warnings.push_back(
      "the package's own sentence splitter is not used: nmt splits sentences with its "
      "own rules for the source language");
  return languages;
}

ConvertReport convert_package_dir(const std::string& pkg, const std::string& shown,
                                  const ConvertOptions& options) {
  Ct2Context context;
  context.languages = read_metadata(pkg + "/metadata.json", context);
  context.beam_size = kArgosBeamSize;
  context.length_penalty = kArgosLengthPenalty;
  const std::string spm = pkg + "/sentencepiece.model";
  if (!convert_detail::path_exists(spm)) {
    if (convert_detail::path_exists(pkg + "/bpe.model")) {
      throw ModelError(shown +
                       ": bpe.model (BPE after Moses tokenization) is not supported: nmt reads "
                       "SentencePiece packages (sentencepiece.model)");
    }
    throw ModelError(shown + ": no sentencepiece.model in the package");
  }
  if (!is_ct2_directory(pkg + "/model"))
    throw ModelError(shown + ": no CTranslate2 model (model/model.bin and model/config.json) in the package");
  return convert_ct2(pkg + "/model", {spm, spm}, options, context);
}

}  // namespace

bool is_argos_package(const std::string& source) {
  std::error_code ec;
  const fs::path p(source);
  if (fs::is_regular_file(p, ec)) return p.extension() == kArgosExtension;
  return fs::exists(p / "metadata.json", ec) && fs::is_directory(p / "model", ec);
}

ConvertReport convert_argos(const std::string& source, const ConvertOptions& options) {
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    convert_detail::check_output_dir(options.output_dir, source, options.force);
    return convert_package_dir(source, source, options);
  }
  convert_detail::check_output_dir(options.output_dir, source, options.force);
  ScratchDir scratch;
  unpack(source, scratch.path());
  try {
    return convert_package_dir(scratch.path(), source, options);
  } catch (const ModelError& e) {
    // Messages name the package, not the scratch copy.
    std::string msg = e.what();
    for (size_t at; (at = msg.find(scratch.path())) != std::string::npos;)
      msg.replace(at, scratch.path().size(), source);
    throw ModelError(msg);
  }
}

}  // namespace models
