#include "documents/zip_package.h"

#include <zip.h>

#include <cstdio>

#include "core/error.h"

namespace documents {

namespace {

std::string zip_error_text(zip_error_t* error) {
  const std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

std::string size_text(uint64_t bytes) {
  if (bytes < (uint64_t{1} << 20)) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// Closes the member on every way out of read().
struct MemberFile {
  zip_file_t* file;
  ~MemberFile() {
    if (file) zip_fclose(file);
  }
};

}  // namespace

ZipPackage::ZipPackage(std::string bytes, const std::string& name, uint64_t max_inflated)
    : bytes_(std::move(bytes)), name_(name), max_inflated_(max_inflated) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes_.data(), bytes_.size(), 0, &error);
  if (source == nullptr) throw core::Error(name_ + ": " + zip_error_text(&error));
  archive_ = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (archive_ == nullptr) {
    zip_source_free(source);
    throw core::Error(name_ + ": not a zip package (" + zip_error_text(&error) + ")");
  }
  const zip_int64_t n = zip_get_num_entries(archive_, 0);
  if (n > static_cast<zip_int64_t>(kMaxPackageMembers)) {
    zip_discard(archive_);
    throw core::Error(name_ + ": " + std::to_string(n) + " members, more than the " +
                      std::to_string(kMaxPackageMembers) + " a package may hold");
  }
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* member = zip_get_name(archive_, static_cast<zip_uint64_t>(i), 0);
    names_.push_back(member ? member : "");
  }
}

ZipPackage::~ZipPackage() {
  if (archive_) zip_discard(archive_);
}

std::string ZipPackage::read(const std::string& member) const {
  zip_stat_t st;
  if (zip_stat(archive_, member.c_str(), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw core::Error(name_ + ": no member " + member);
  const std::string where = name_ + ": " + member + ": ";
  const uint64_t left = max_inflated_ - inflated_;
  if (st.size > left) {
    throw core::Error(where + "declares " + size_text(st.size) + " inflated, more than the " +
                      size_text(left) + " this package may still inflate to");
  }
  const MemberFile file{zip_fopen(archive_, member.c_str(), 0)};
  if (file.file == nullptr) throw core::Error(where + "cannot read it (" + zip_strerror(archive_) + ")");
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const zip_int64_t got = zip_fread(file.file, buffer, sizeof buffer);
    if (got < 0) throw core::Error(where + "cannot read it (" + zip_file_strerror(file.file) + ")");
    if (got == 0) break;
    if (data.size() + static_cast<uint64_t>(got) > st.size)
      throw core::Error(where + "inflates to more than the " + size_text(st.size) + " it declares");
    data.append(buffer, static_cast<size_t>(got));
  }
  if (data.size() != st.size)
    throw core::Error(where + "inflates to " + size_text(data.size()) + ", not the " + size_text(st.size) +
                      " it declares");
  inflated_ += data.size();
  return data;
}

std::string ZipPackage::write(const std::map<std::string, std::string>& replaced) const {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* target = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (target == nullptr) throw core::Error(name_ + ": " + zip_error_text(&error));
  zip_source_keep(target);
  zip_t* out = zip_open_from_source(target, ZIP_TRUNCATE, &error);
  if (out == nullptr) {
    zip_source_free(target);
    throw core::Error(name_ + ": " + zip_error_text(&error));
  }
  std::vector<std::string> kept;  // the replaced contents live until the archive is closed
  kept.reserve(replaced.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    zip_stat_t st;
    zip_stat_index(archive_, i, 0, &st);
    zip_source_t* member;
    const auto it = replaced.find(names_[i]);
    if (it != replaced.end()) {
      kept.push_back(it->second);
      member = zip_source_buffer(out, kept.back().data(), kept.back().size(), 0);
    } else {
      member = zip_source_zip(out, archive_, i, 0, 0, -1);
    }
    const zip_int64_t index = member ? zip_file_add(out, names_[i].c_str(), member, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0) {
      if (member) zip_source_free(member);
      zip_discard(out);
      zip_source_free(target);
      throw core::Error(name_ + ": cannot write member " + names_[i]);
    }
    if (st.valid & ZIP_STAT_COMP_METHOD) {
      zip_set_file_compression(out, static_cast<zip_uint64_t>(index),
                               st.comp_method == ZIP_CM_STORE ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0);
    }
  }
  if (zip_close(out) != 0) {
    zip_discard(out);
    zip_source_free(target);
    throw core::Error(name_ + ": cannot write the package");
  }
  std::string result;
  zip_stat_t st;
  if (zip_source_stat(target, &st) == 0 && zip_source_open(target) == 0) {
    result.resize(st.size);
    const zip_int64_t got = zip_source_read(target, result.data(), st.size);
    zip_source_close(target);
    if (got < 0) result.clear();
    result.resize(got < 0 ? 0 : static_cast<size_t>(got));
  }
  zip_source_free(target);
  if (result.empty()) throw core::Error(name_ + ": cannot write the package");
  return result;
}

}  // namespace documents
