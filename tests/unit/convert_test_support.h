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
#include "models/convert/convert_hf_marian.h"
#include "models/convert/convert_marian_npz.h"
#include "models/convert/marian_yaml.h"
#include "models/convert/npz.h"
#include "models/convert/safetensors.h"
#include "models/model_error.h"
#include "models/positions.h"
#include "pipeline/translator.h"
#include "teacher_forced.h"
#include "test_support.h"

namespace convert_test {

namespace fs = std::filesystem;
using nlohmann::json;
constexpr double kTolerance = 1e-4;

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

inline void write_npz(const std::string& path, const std::map<std::string, std::string>& members) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  REQUIRE(z != nullptr);
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    REQUIRE(src != nullptr);
    REQUIRE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE) >= 0);
  }
  REQUIRE(zip_close(z) == 0);
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

inline void require_hypotheses(const std::vector<core::Hypothesis>& got, const json& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t k = 0; k < got.size(); ++k) {
    REQUIRE(got[k].tokens == expected[k]["ids"].get<std::vector<int32_t>>());
    REQUIRE(got[k].score == Approx(expected[k]["score"].get<double>()).margin(kTolerance));
  }
}

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
  const auto& model = translator.model();
  const auto& desc = model.description();
  const auto sources = g["sources"].get<std::vector<std::vector<int32_t>>>();
  const auto texts = g["sources_text"].get<std::vector<std::string>>();
  for (size_t i = 0; i < texts.size(); ++i) {
    auto ids = translator.tokenizer().encode(texts[i]);
    ids.push_back(desc.tokens.eos);
    REQUIRE(ids == sources[i]);
    const auto o = golden_limits(translator);
    REQUIRE(translator.max_output_length(static_cast<int>(ids.size()), o) == g["max_lengths"][i].get<int>());
  }
  const int s = g["encoder_output"]["sentence"];
  const auto encoded = model.encode({sources[s]});
  REQUIRE(encoded.memory.size() == g["encoder_output"]["data"].size());
  for (size_t i = 0; i < encoded.memory.size(); ++i) {
    REQUIRE(encoded.memory[i] == Approx(g["encoder_output"]["data"][i].get<double>()).margin(kTolerance));
  }
  const auto tokens = g["decoder_logits"]["tokens"].get<std::vector<int32_t>>();
  const auto logits = test::teacher_forced_logits(model, encoded, 0, tokens);
  const int vocab = desc.config.tgt_vocab_size;
  REQUIRE(logits.size() == g["decoder_logits"]["data"].size());
  for (size_t i = 0; i < logits.size(); ++i) {
    if (static_cast<int>(i % vocab) == skip_column) continue;
    REQUIRE(logits[i] == Approx(g["decoder_logits"]["data"][i].get<double>()).margin(kTolerance));
  }
  pipeline::TranslateOptions greedy = golden_limits(translator);
  greedy.beam_size = 1;
  greedy.length_penalty = g["search"]["length_penalty"];
  const auto greedy_out = translator.translate_ids(sources, greedy);
  for (size_t i = 0; i < sources.size(); ++i)
    require_hypotheses(greedy_out[i], json::array({g["greedy"][i]}));
  for (const auto& b : g["beam"]) {
    pipeline::TranslateOptions o = golden_limits(translator);
    o.beam_size = b["beam_size"];
    o.length_penalty = b["length_penalty"];
    o.n_best = b["n_best"];
    const auto out = translator.translate_ids(sources, o);
    for (size_t i = 0; i < sources.size(); ++i) require_hypotheses(out[i], b["results"][i]);
  }
  greedy.split_sentences = false;  // each text one sentence, as the reference sees it
  const auto translations = translator.translate(texts, greedy);
  for (size_t i = 0; i < texts.size(); ++i) {
    REQUIRE(translations[i].texts[0] == test::with_source_whitespace(texts[i], g["greedy_text"][i]));
  }
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
  write_npz(dir + "/model.npz", members);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  INFO("message: " << haystack << "\nexpected to contain: " << needle);
  return haystack.find(needle) != std::string::npos;
}

}  // namespace convert_test
