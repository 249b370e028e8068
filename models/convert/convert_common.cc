#include "models/convert/convert_common.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/printable.h"
#include "core/regular_file.h"
#include "models/convert/convert_error.h"
#include "models/model_error.h"
#include "models/parameter_count.h"

namespace models {

namespace fs = std::filesystem;

namespace convert_detail {

bool path_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

std::string read_text_file(const std::string& path, std::string_view what) {
  try {
    return core::read_regular_file(path, what, kMaxConverterTextBytes);
  } catch (const core::Error& e) {
    throw ModelError(e.what());
  }
}

std::string path_inside(const std::string& dir, const std::string& entry, const std::string& where,
                        const std::string& key) {
  const auto refuse = [&](const std::string& why) {
    throw ModelError(where + ": " + key + ": '" + core::printable(entry) + "' " + why +
                     " (a release names files inside its directory only)");
  };
  const fs::path relative(entry);
  if (entry.empty()) refuse("is empty");
  if (relative.is_absolute()) refuse("is an absolute path");
  for (const fs::path& part : relative) {
    if (part == "..") refuse("climbs out with '..'");
  }
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(dir, ec);
  if (ec) throw ModelError(dir + ": cannot resolve: " + ec.message());
  const fs::path target = fs::weakly_canonical(root / relative, ec);
  if (ec)
    throw ModelError(where + ": " + key + ": cannot resolve '" + core::printable(entry) +
                     "': " + ec.message());
  // Component-wise prefix: /rel/x must not count as inside /re.
  auto t = target.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++t) {
    if (t == target.end() || *t != *r) refuse("leads outside the release directory through a symlink");
  }
  return dir + "/" + entry;
}

void check_output_dir(const std::string& dir, const std::string& source_dir, bool force) {
  if (dir.empty()) throw ConvertUsageError({"convert: ", "output_dir", " is required"});
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec))
    throw ConvertUsageError({"", "output_dir", " " + dir + ": exists and is not a directory"});
  if (fs::equivalent(dir, source_dir, ec)) {
    throw ConvertUsageError(
        {"", "output_dir", " " + dir + ": is the source directory; write the converted model elsewhere"});
  }
  if (!force && !fs::is_empty(dir, ec)) {
    throw ConvertUsageError({"", "output_dir", " " + dir + ": directory is not empty (use ", "force",
                             " to replace the model in it)"});
  }
}

void write_model(const ConvertOptions& options, const ModelDescription& description,
                 const std::vector<NamedTensor>& tensors, DType dtype, const OutputFiles& files) {
  const std::string& dir = options.output_dir;
  // Read the tokenizer files to copy before writing anything: a bad one leaves the output untouched.
  std::vector<std::pair<std::string, std::string>> copies;
  for (const auto& [source, name] : files.copies)
    copies.emplace_back(name, read_text_file(source, "tokenizer file"));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw core::Error(dir + ": cannot create directory: " + ec.message());
  // A model.json from an earlier conversion must not survive a failure of this one.
  const std::string json_path = dir + "/model.json";
  if (fs::exists(json_path, ec) && !fs::remove(json_path, ec)) {
    throw core::Error(json_path + ": cannot remove: " + ec.message());
  }
  for (const auto& [name, bytes] : copies) core::write_file_atomically(dir + "/" + name, bytes);
  for (const auto& [name, bytes] : files.contents) core::write_file_atomically(dir + "/" + name, bytes);
  write_checkpoint(dir, description, tensors, dtype);
}

std::string vocab_json(const std::vector<std::pair<std::string, int32_t>>& entries) {
  std::vector<std::pair<std::string, int32_t>> sorted = entries;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string out = "{\n";
  for (size_t i = 0; i < sorted.size(); ++i) {
    out += "  " + nlohmann::json(sorted[i].first).dump() + ": " + std::to_string(sorted[i].second);
    out += i + 1 < sorted.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

DType choose_dtype(ConvertDType requested, bool all_f16) {
  switch (requested) {
    case ConvertDType::kF32:
      return DType::kF32;
    case ConvertDType::kF16:
      return DType::kF16;
    case ConvertDType::kI8:
      return DType::kI8;
    case ConvertDType::kKeep:
      return all_f16 ? DType::kF16 : DType::kF32;
  }
  return DType::kF32;
}

void check_no_nan(const std::vector<float>& values, const std::string& where, const std::string& name) {
  for (float v : values) {
    if (std::isnan(v)) throw ModelError(where + ": tensor '" + name + "' contains NaN");
  }
}

ConvertReport make_report(const ConvertOptions& options, const ModelDescription& description,
                          const std::vector<NamedTensor>& tensors, DType dtype,
                          std::vector<std::string> warnings) {
  ConvertReport r;
  r.description = description;
  r.dtype = dtype;
  r.tensors = tensors.size();
  r.parameters = parameter_count(Checkpoint(options.output_dir));
  r.warnings = std::move(warnings);
  return r;
}

}  // namespace convert_detail

}  // namespace models
