#include "documents/zip_package.h"

#include <zip.h>

#include "core/error.h"

namespace documents {

namespace {

std::string zip_error_text(zip_error_t* error) {
  const std::string text = zip_error_strerror(error);
  zip_error_fini(error);
  return text;
}

}  // namespace

ZipPackage::ZipPackage(std::string bytes, const std::string& name) : bytes_(std::move(bytes)), name_(name) {
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
  zip_file_t* file = zip_fopen(archive_, member.c_str(), 0);
  if (file == nullptr) throw core::Error(name_ + ": cannot read " + member);
  std::string data(st.size, '\0');
  const zip_int64_t got = zip_fread(file, data.data(), st.size);
  zip_fclose(file);
  if (got < 0 || static_cast<zip_uint64_t>(got) != st.size)
    throw core::Error(name_ + ": cannot read " + member);
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
