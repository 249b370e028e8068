#include "models/convert/marian_release.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <filesystem>
#include <new>
#include <nlohmann/json.hpp>
#include <set>

#include "core/ends_with.h"
#include "core/error.h"
#include "models/convert/convert_common.h"
#include "models/convert/convert_error.h"
#include "models/convert/json_file.h"
#include "models/convert/marian_bin.h"
#include "models/convert/marian_shortlist.h"
#include "models/model_error.h"

namespace models {

namespace fs = std::filesystem;

namespace {

using convert_detail::path_exists;
using convert_detail::path_inside;
using convert_detail::read_text_file;

// Read by us, not by SentencePiece: its Load() opens anything (a FIFO blocks, a device never ends).
std::unique_ptr<sentencepiece::SentencePieceProcessor> load_spm(const std::string& path) {
  const std::string proto = read_text_file(path, "SentencePiece model");
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  sentencepiece::util::Status status;
  try {
    status = sp->LoadFromSerializedProto(proto);
  } catch (const std::bad_alloc&) {
    throw;                             // the memory limit, not the model
  } catch (const std::exception& e) {  // the trie builder throws on some malformed models
    throw ModelError(path + ": not a SentencePiece model: " + e.what());
  }
  if (!status.ok()) throw ModelError(path + ": not a SentencePiece model: " + status.ToString());
  return sp;
}

MarianVocab load_vocab(const std::string& path) {
  MarianVocab v;
  v.path = path;
  if (!path_exists(path)) throw ModelError(path + ": vocabulary file missing");
  if (core::ends_with(path, ".spm") || core::ends_with(path, ".model")) {
    const auto sp = load_spm(path);
    v.spm = true;
    v.size = sp->GetPieceSize();
    v.unk = sp->unk_id();
    v.eos = sp->PieceToId("</s>");
    if (v.eos == v.unk) throw ModelError(path + ": SentencePiece model has no '</s>' piece");
    return v;
  }
  if (core::ends_with(path, ".yml") || core::ends_with(path, ".yaml")) {
    v.entries = parse_vocab_yaml(read_text_file(path, "vocabulary"), path);
  } else if (core::ends_with(path, ".json")) {
    const nlohmann::json j =
        convert_detail::read_json_object(path, "vocabulary", "a JSON object {\"piece\": id}");
    std::set<int64_t> ids;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() >= (1 << 24)) {
        throw ModelError(path + ": piece '" + it.key() + "': id must be an integer in [0, 2^24)");
      }
      if (!ids.insert(it->get<int64_t>()).second) {
        throw ModelError(path + ": id " + std::to_string(it->get<int64_t>()) + " is used twice");
      }
      v.entries.emplace_back(it.key(), static_cast<int32_t>(it->get<int64_t>()));
    }
  } else {
    throw ModelError(path + ": unknown vocabulary format (expected .yml, .json or a SentencePiece .spm)");
  }
  for (const auto& [piece, id] : v.entries) {
    v.size = std::max(v.size, id + 1);
    if (piece == "</s>") v.eos = id;
    if (piece == "<unk>") v.unk = id;
  }
  if (v.eos < 0) throw ModelError(path + ": vocabulary has no '</s>'");
  if (v.unk < 0) throw ModelError(path + ": vocabulary has no '<unk>'");
  return v;
}

void check_spm(const std::string& path) {
  if (!path_exists(path)) throw ModelError(path + ": missing (SentencePiece model)");
  load_spm(path);
}

std::string find_npz(const std::string& dir, const FlatYaml* decoder_yml) {
  if (decoder_yml) {
    const auto models = decoder_yml->list("models");
    if (!models.empty()) {
      const std::string npz = path_inside(dir, models[0], decoder_yml->where(), "models");
      if (path_exists(npz)) return npz;
    }
  }
  std::vector<std::string> found;
  std::error_code ec;
  std::vector<std::string> bins;  // Marian's binary models; a release's lexical shortlists are .bin too
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".npz") found.push_back(e.path().string());
    if (e.path().extension() == ".bin" && looks_like_marian_bin(e.path().string()))
      bins.push_back(e.path().string());
  }
  if (ec) throw ModelError(dir + ": cannot list: " + ec.message());
  if (found.empty()) found = bins;
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    if (path_exists(dir + "/config.json")) {
      throw ConvertModelError(
          {dir + ": no *.npz or Marian .bin model file (config.json is there: for a Hugging Face model use ",
           "convert_hf_marian", ")"});
    }
    throw ModelError(dir + ": no *.npz or Marian .bin model file");
  }
  if (found.size() == 1) return path_inside(dir, fs::path(found[0]).filename().string(), dir, "model file");
  if (found.size() > 1) {
    throw ConvertUsageError({dir + ": several model files (" + fs::path(found[0]).filename().string() + ", " +
                                 fs::path(found[1]).filename().string() + ", ...): choose one with ",
                             "npz"});
  }
  return found[0];
}

bool is_package_config_name(const std::string& name) {
  return name.rfind("config", 0) == 0 && (core::ends_with(name, ".yml") || core::ends_with(name, ".yaml"));
}

// The decoder configuration a release directory carries: decoder.yml, else the one config*.yml of a
// Bergamot / translateLocally package (config.intgemm8bitalpha.yml) that names the model files; "" when
// there is none. Several such configs are ambiguous: the user copies the one to use to decoder.yml.
std::string find_decoder_config(const std::string& dir) {
  if (path_exists(dir + "/decoder.yml")) return dir + "/decoder.yml";
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!is_package_config_name(name) || !e.is_regular_file(ec)) continue;
    try {
      const FlatYaml yml = FlatYaml::parse(read_text_file(e.path().string(), "decoder configuration"), name);
      if (!yml.list("models").empty() && !yml.list("vocabs").empty()) found.push_back(name);
    } catch (const ModelError&) {  // not a Marian configuration: not a candidate
    }
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw core::UsageError(dir + ": several Marian configurations (" + found[0] + ", " + found[1] +
                           (found.size() > 2 ? ", ..." : "") +
                           ") and no decoder.yml: copy the one to use to decoder.yml");
  }
  return found.empty() ? "" : dir + "/" + found[0];
}

}  // namespace

MarianRelease read_marian_release(const std::string& dir, const MarianFiles& given) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ModelError(dir + ": not a directory");
  const std::string found_config = find_decoder_config(dir);
  const std::string decoder_path = found_config.empty() ? dir + "/decoder.yml" : found_config;
  std::unique_ptr<FlatYaml> decoder_yml;
  if (!found_config.empty()) {
    const std::string config_name = fs::path(decoder_path).filename().string();
    path_inside(dir, config_name, dir, config_name);
    decoder_yml = std::make_unique<FlatYaml>(
        FlatYaml::parse(read_text_file(decoder_path, "decoder configuration"), decoder_path));
  }
  MarianFiles f = given;
  if (f.npz.empty()) f.npz = find_npz(dir, decoder_yml.get());
  const std::vector<std::string> yml_shortlist =
      decoder_yml ? decoder_yml->list("shortlist") : std::vector<std::string>{};
  if (f.shortlist.empty() && !yml_shortlist.empty()) {
    const std::string path = path_inside(dir, yml_shortlist[0], decoder_path, "shortlist");
    if (looks_like_marian_shortlist(path)) f.shortlist = path;  // a text shortlist stays a warning
  }
  const std::vector<std::string> yml_vocabs =
      decoder_yml ? decoder_yml->list("vocabs") : std::vector<std::string>{};
  if (f.source_vocab.empty() && !yml_vocabs.empty())
    f.source_vocab = path_inside(dir, yml_vocabs[0], decoder_path, "vocabs");
  if (f.target_vocab.empty() && !yml_vocabs.empty())
    f.target_vocab = path_inside(dir, yml_vocabs.back(), decoder_path, "vocabs");
  if (f.source_vocab.empty() || f.target_vocab.empty()) {
    throw ConvertUsageError({decoder_yml ? decoder_path + ": names no vocabularies: use "
                                         : dir + ": no decoder.yml: name the vocabularies with ",
                             "source_vocab/target_vocab"});
  }
  if (yml_vocabs.size() > 2) {
    throw ModelError(decoder_path + ": vocabs: " + std::to_string(yml_vocabs.size()) +
                     " vocabularies (multi-source models are not supported)");
  }
  MarianVocab src_vocab = load_vocab(f.source_vocab);
  MarianVocab tgt_vocab = f.target_vocab == f.source_vocab ? src_vocab : load_vocab(f.target_vocab);
  for (const MarianVocab* v : {&src_vocab, &tgt_vocab}) {
    const std::string& spm_flag = v == &src_vocab ? given.source_spm : given.target_spm;
    if (v->spm && !spm_flag.empty() && spm_flag != v->path) {
      throw ConvertUsageError({v->path + " is a SentencePiece vocabulary, so it also segments: drop ",
                               v == &src_vocab ? "source_spm" : "target_spm"});
    }
  }
  if (f.source_spm.empty())
    f.source_spm = src_vocab.spm ? src_vocab.path : path_inside(dir, "source.spm", dir, "source.spm");
  if (f.target_spm.empty())
    f.target_spm = tgt_vocab.spm ? tgt_vocab.path : path_inside(dir, "target.spm", dir, "target.spm");
  check_spm(f.source_spm);
  check_spm(f.target_spm);
  if (src_vocab.eos != tgt_vocab.eos || src_vocab.unk != tgt_vocab.unk) {
    throw ModelError(f.target_vocab + ": '</s>'/'<unk>' ids (" + std::to_string(tgt_vocab.eos) + ", " +
                     std::to_string(tgt_vocab.unk) + ") differ from the source vocabulary's (" +
                     std::to_string(src_vocab.eos) + ", " + std::to_string(src_vocab.unk) +
                     "): nmt models have one of each");
  }

  MarianRelease release;
  release.decoder_path = decoder_path;
  release.decoder_yml = std::move(decoder_yml);
  release.files = std::move(f);
  release.source_vocab = std::move(src_vocab);
  release.target_vocab = std::move(tgt_vocab);
  return release;
}

}  // namespace models
