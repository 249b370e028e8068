// Fixtures and helpers of the converter tests (test_convert_*.cc): the OPUS-MT fixtures, copying and
// breaking them, and checking that a converted model matches its golden outputs.
#pragma once

#include <zip.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/error.h"
#include "core/half.h"
#include "golden_parity.h"
#include "models/convert/convert_hf_marian.h"
#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_yaml.h"
#include "models/convert/npz.h"
#include "models/convert/safetensors.h"
#include "models/model_error.h"
#include "models/positions.h"
#include "pipeline/translator.h"
#include "test_support.h"
#include "zip_writer.h"

namespace convert_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string hf_dir() { return test::fixtures_dir() + "/opus/hf"; }
inline std::string marian_dir() { return test::fixtures_dir() + "/opus/marian"; }
inline json hf_golden() { return json::parse(test::read_file(test::fixtures_dir() + "/opus/golden.json")); }
inline json marian_golden() { return json::parse(test::read_file(marian_dir() + "/golden.json")); }

inline models::ConvertOptions to(const std::string& dir) {
  models::ConvertOptions o;
  o.output_dir = dir;
  return o;
}

inline void copy_dir(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// ---- safetensors editing --------------------------------------------------------------------------

struct Safetensors {
  json header;
  std::string data;

  static Safetensors load(const std::string& path) {
    const std::string bytes = test::read_file(path);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    return {json::parse(bytes.substr(8, n)), bytes.substr(8 + n)};
  }
  void save(const std::string& path) const {
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    const uint64_t n = h.size();
    std::string bytes(reinterpret_cast<const char*>(&n), 8);
    test::write_file(path, bytes + h + data);
  }
  std::string bytes_of(const std::string& name) const {
    const auto& o = header.at(name)["data_offsets"];
    return data.substr(o[0].get<size_t>(), o[1].get<size_t>() - o[0].get<size_t>());
  }
  void add(const std::string& name, const std::string& dtype, const std::vector<int64_t>& shape,
           const std::string& bytes) {
    header[name] = {
        {"dtype", dtype}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data += bytes;
  }
};

// ---- npz editing ----------------------------------------------------------------------------------

inline std::string npy(const std::string& descr, const std::vector<int64_t>& shape, const std::string& data,
                       int version = 1, const std::string& fortran = "False") {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': (" + dims + "), }";
  const size_t preamble = version == 1 ? 10 : 12;
  while ((preamble + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(version) + '\0';
  const uint32_t len = static_cast<uint32_t>(dict.size());
  out.append(reinterpret_cast<const char*>(&len), version == 1 ? 2 : 4);
  return out + dict + data;
}

inline std::string f32_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// The fixture's members as raw .npy bytes (read with libzip directly, independent of NpzFile).
inline std::map<std::string, std::string> read_npz_members(const std::string& path) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
  REQUIRE(z != nullptr);
  std::map<std::string, std::string> out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
    std::string bytes(st.size, '\0');
    zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    REQUIRE(zip_fread(f, bytes.data(), st.size) == static_cast<zip_int64_t>(st.size));
    zip_fclose(f);
    out[st.name] = bytes;
  }
  zip_discard(z);
  return out;
}

inline std::string model_yml(const std::map<std::string, std::string>& members) {
  const std::string& m = members.at("special:model.yml.npy");
  const auto h = models::parse_npy_header(m, "x");
  return m.substr(h.data_offset);
}

inline void set_model_yml(std::map<std::string, std::string>& members, std::string text) {
  if (text.empty() || text.back() != '\0') text += '\0';
  members["special:model.yml.npy"] = npy("|i1", {static_cast<int64_t>(text.size())}, text);
}

inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// ---- parity ---------------------------------------------------------------------------------------

// The golden max lengths come from max_length_a 1, b 5, max_length 512 (the fixture model's defaults);
// converted models carry the source's own defaults, so the tests pass these explicitly.
inline pipeline::TranslateOptions golden_limits(const pipeline::Translator& translator) {
  pipeline::TranslateOptions o = translator.defaults();
  o.max_length_a = 1.0f;
  o.max_length_b = 5;
  o.max_length = 512;
  return o;
}

// Everything golden.json records, against the model in `dir`. `skip_column`: a logit column not compared
// (-1: none).
inline void require_parity(const std::string& dir, const json& g, int skip_column) {
  const pipeline::Translator translator(dir);
  golden::require_parity(translator, g, {golden_limits(translator), skip_column, {}});
}

// ---- refusals -------------------------------------------------------------------------------------

// Copies `fixture` into a temp dir, lets `edit(dir)` break it, converts with `convert(dir, out)`, and
// returns the ModelError message ("" if it converted). Also checks: one line, no model.json written.
template <class Edit, class Convert>
std::string refusal(const std::string& fixture, Edit&& edit, Convert&& convert) {
  test::TempDir tmp;
  const std::string src = tmp.file("src"), out = tmp.file("out");
  copy_dir(fixture, src);
  edit(src);
  try {
    convert(src, out);
  } catch (const models::ModelError& e) {
    const std::string msg = e.what();
    INFO(msg);
    REQUIRE(msg.find('\n') == std::string::npos);
    REQUIRE(!fs::exists(out + "/model.json"));
    return msg;
  }
  return "";
}

template <class Edit>
std::string hf_refusal(Edit&& edit) {
  return refusal(hf_dir(), edit, [](const std::string& src, const std::string& out) {
    models::convert_hf_marian(src, to(out));
  });
}

template <class Edit>
std::string marian_refusal(Edit&& edit) {
  return refusal(marian_dir(), edit, [](const std::string& src, const std::string& out) {
    models::convert_marian_npz(src, {}, to(out));
  });
}

inline void edit_config(const std::string& dir, const std::string& key, const json& value) {
  json c = json::parse(test::read_file(dir + "/config.json"));
  if (value.is_null()) {
    c.erase(key);
  } else {
    c[key] = value;
  }
  test::write_file(dir + "/config.json", c.dump(2));
}

template <class Edit>
void edit_safetensors(const std::string& dir, Edit&& edit) {
  Safetensors st = Safetensors::load(dir + "/model.safetensors");
  edit(st);
  st.save(dir + "/model.safetensors");
}

template <class Edit>
void edit_npz(const std::string& dir, Edit&& edit) {
  auto members = read_npz_members(dir + "/model.npz");
  edit(members);
  test::write_zip(dir + "/model.npz", {members.begin(), members.end()});
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  INFO("message: " << haystack << "\nexpected to contain: " << needle);
  return haystack.find(needle) != std::string::npos;
}

}  // namespace convert_test
