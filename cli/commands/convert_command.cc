#include "cli/commands/convert_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <utility>

#include "core/error.h"
#include "models/convert/argos_package.h"
#include "models/convert/convert_ct2.h"
#include "models/convert/convert_error.h"
#include "models/convert/convert_hf_marian.h"
#include "models/convert/convert_nmt.h"
#include "models/convert/hf_cache.h"
#include "models/convert/marian_bin.h"

namespace cli {

namespace {

// The flag for a ConvertOptions/MarianFiles field or converter the library names in a message.
std::string flag_for(const std::string& option) {
  if (option == "output_dir") return "-o";
  if (option == "force") return "--force";
  if (option == "npz") return "--npz";
  if (option == "source_vocab/target_vocab") return "--vocab or --source-vocab/--target-vocab";
  if (option == "source_spm") return "--source-spm";
  if (option == "target_spm") return "--target-spm";
  if (option == "convert_hf_marian") return "--from hf-marian";
  if (option == "convert_marian_npz") return "--from marian-npz";
  if (option == "convert_ct2") return "--from ct2";
  return option;
}

std::string or_unknown(const std::string& language) { return language.empty() ? "(unknown)" : language; }

// The directory to read: SOURCE itself, or for hf-marian an ORG/NAME[@REV] that names no path, the
// repository's snapshot in the Hugging Face cache.
std::string source_directory(const ConvertCommandOptions& options) {
  std::error_code ec;
  if (options.from != "hf-marian" ||
      std::filesystem::symlink_status(options.source_dir, ec).type() !=
          std::filesystem::file_type::not_found ||
      !models::is_hf_repo_id(options.source_dir)) {
    return options.source_dir;
  }
  return models::find_hf_snapshot(options.source_dir);
}

}  // namespace

std::string detect_layout(const std::string& source) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(source, ec);
  if (status.type() == fs::file_type::not_found && models::is_hf_repo_id(source)) return "hf-marian";
  if (models::is_argos_package(source)) return "argos";
  if (!fs::is_directory(status)) {
    throw core::UsageError("cannot tell the layout of '" + source + "': it is not a directory; give --from");
  }
  if (fs::exists(fs::path(source) / "model.json", ec)) return "nmt";
  if (models::is_ct2_directory(source)) return "ct2";
  if (fs::exists(fs::path(source) / "config.json", ec)) return "hf-marian";
  for (const fs::directory_entry& entry : fs::directory_iterator(source, ec)) {
    if (entry.path().extension() == ".npz") return "marian-npz";
    if (entry.path().extension() == ".bin" && models::looks_like_marian_bin(entry.path().string()))
      return "marian-npz";
  }
  throw core::UsageError("cannot tell the layout of '" + source +
                         "': no model.json, config.json, *.npz or Marian .bin in it; give --from");
}

namespace {

// Runs the chosen converter; library messages name options by field, users see flags.
models::ConvertReport convert(const ConvertCommandOptions& options, const models::ConvertOptions& co) {
  try {
    if (options.from == "nmt") return models::convert_nmt(options.source_dir, co);
    if (options.from == "hf-marian") return models::convert_hf_marian(source_directory(options), co);
    if (options.from == "argos") return models::convert_argos(options.source_dir, co);
    if (options.from == "ct2") {
      return models::convert_ct2(options.source_dir, {options.marian.source_spm, options.marian.target_spm},
                                 co);
    }
    models::MarianFiles files = options.marian;
    if (!options.vocab.empty()) files.source_vocab = files.target_vocab = options.vocab;
    return models::convert_marian_npz(options.source_dir, files, co);
  } catch (const models::ConvertUsageError& e) {
    throw core::UsageError(models::render_option_message(e.parts(), flag_for));
  } catch (const models::ConvertModelError& e) {
    throw models::ModelError(models::render_option_message(e.parts(), flag_for));
  }
}

}  // namespace

CLI::App* add_convert_command(CLI::App& app, ConvertCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "convert", "Import an OPUS-MT / Marian, CTranslate2 or Argos model into an nmt model directory");
  cmd->footer(
      "Source layouts:\n"
      "  hf-marian   a Hugging Face MarianMT checkpoint: config.json, model.safetensors or\n"
      "              pytorch_model.bin, source.spm, target.spm, vocab.json [, target_vocab.json,\n"
      "              generation_config.json]; or ORG/NAME[@REV], a download in the Hugging Face cache\n"
      "  marian-npz  an unpacked native Marian release: *.npz or Marian's binary model.bin (float32 or\n"
      "              float16), decoder.yml, vocabulary (.yml or .spm), source.spm, target.spm\n"
      "  ct2         a CTranslate2 model directory: model.bin, config.json,\n"
      "              vocabularies; source.spm + target.spm or sentencepiece.model\n"
      "  argos       an Argos Translate package (.argosmodel) or its directory:\n"
      "              metadata.json, model/, sentencepiece.model\n"
      "  nmt         an nmt model directory, rewritten in another --dtype (e.g. int8)\n"
      "Anything the checkpoint format cannot represent is refused with a message naming it; decoding\n"
      "settings it cannot carry over are reported as warnings. See docs/convert.md.\n"
      "\n"
      "Examples:\n"
      "  nmt convert --from hf-marian opus-mt-en-de/ -o models/en-de\n"
      "  nmt convert Helsinki-NLP/opus-mt-en-de -o models/en-de\n"
      "  nmt convert --from marian-npz opus-2020-02-26/ -o models/en-de --dtype f16\n"
      "  nmt convert --from marian-npz release/ --npz model2.npz --vocab release/opus.vocab.yml -o out\n"
      "  nmt convert --from ct2 opus-mt-en-de-ct2/ -o models/en-de\n"
      "  nmt convert translate-en_de-1_0.argosmodel -o models/en-de\n"
      "  nmt convert --from nmt data/multi30k-en-de -o models/en-de-int8 --dtype int8\n"
      "  nmt translate -m models/en-de < in.txt > out.txt");
  cmd->add_option(
         "--from", o.from,
         "Source layout: hf-marian, marian-npz, ct2, argos or nmt (default: told from SOURCE's files)")
      ->check(CLI::IsMember({"hf-marian", "marian-npz", "ct2", "argos", "nmt"}));
  cmd->add_option("source", o.source_dir,
                  "The model directory to import (hf-marian: or ORG/NAME[@REV] in the Hugging Face cache; "
                  "argos: or a .argosmodel file)")
      ->required();
  cmd->add_option("-o,--output", o.output_dir, "Output model directory (must be new or empty unless --force)")
      ->required();
  cmd->add_option("--dtype", o.dtype,
                  "Weight type written: f32, f16 or int8 (linear weights and embeddings as int8 with a "
                  "scale per row, the rest f32; default: f16 if the source is all f16, else f32)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}));
  cmd->add_flag("--force", o.force, "Write into a non-empty output directory, replacing its model files");
  cmd->add_option("--source-lang", o.source_lang,
                  "The model's source language (BCP 47: en, pt-BR), for releases that do not state it "
                  "(tokenizer_config.json, README.md); sentence splitting uses it");
  cmd->add_option("--target-lang", o.target_lang, "The model's target language, as --source-lang");
  cmd->add_option(
      "--npz", o.marian.npz,
      "marian-npz: the .npz or .bin model (default: decoder.yml's, else the only *.npz, else *.bin)");
  cmd->add_option("--vocab", o.vocab, "marian-npz: vocabulary for both sides (.yml, .json or .spm)");
  cmd->add_option("--source-vocab", o.marian.source_vocab,
                  "marian-npz: source vocabulary (default: decoder.yml's)");
  cmd->add_option("--target-vocab", o.marian.target_vocab,
                  "marian-npz: target vocabulary (default: decoder.yml's)");
  cmd->add_option("--shortlist", o.marian.shortlist,
                  "marian-npz: Marian's binary lexical shortlist (lex.*.s2t.bin), written as the model's "
                  "shortlist.bin (default: decoder.yml's)");
  cmd->add_option("--source-spm", o.marian.source_spm,
                  "marian-npz, ct2: source SentencePiece model (default: source.spm; ct2: else "
                  "sentencepiece.model)");
  cmd->add_option("--target-spm", o.marian.target_spm,
                  "marian-npz, ct2: target SentencePiece model (default: target.spm; ct2: else "
                  "sentencepiece.model)");
  return cmd;
}

models::ConvertReport convert_checkpoint(const ConvertCommandOptions& given) {
  ConvertCommandOptions options = given;
  if (options.from.empty()) options.from = detect_layout(options.source_dir);
  models::ConvertOptions co;
  co.output_dir = options.output_dir;
  co.force = options.force;
  co.dtype = options.dtype == "f32"    ? models::ConvertDType::kF32
             : options.dtype == "f16"  ? models::ConvertDType::kF16
             : options.dtype == "int8" ? models::ConvertDType::kI8
                                       : models::ConvertDType::kKeep;
  for (const auto& [flag, tag] :
       {std::pair{"--source-lang", &options.source_lang}, std::pair{"--target-lang", &options.target_lang}}) {
    if (!tag->empty() && !models::is_language_tag(*tag))
      throw core::UsageError(std::string(flag) + " '" + *tag +
                             "' is not a language tag (such as en, de, pt-BR)");
  }
  co.source_lang = options.source_lang;
  co.target_lang = options.target_lang;
  const models::MarianFiles& m = options.marian;
  const bool marian_options =
      !m.npz.empty() || !options.vocab.empty() || !m.source_vocab.empty() || !m.target_vocab.empty();
  const bool spm_options = !m.source_spm.empty() || !m.target_spm.empty();
  if ((options.from != "marian-npz" && marian_options) ||
      (options.from != "marian-npz" && options.from != "ct2" && spm_options)) {
    throw core::UsageError(
        "--npz, --vocab, --source-vocab and --target-vocab are for --from marian-npz; --source-spm and "
        "--target-spm for marian-npz and ct2");
  }
  if (!options.vocab.empty() && (!m.source_vocab.empty() || !m.target_vocab.empty())) {
    throw core::UsageError(
        "--vocab sets both vocabularies: do not combine it with --source-vocab/--target-vocab");
  }
  return convert(options, co);
}

int run_convert(const ConvertCommandOptions& options) {
  const models::ConvertReport report = convert_checkpoint(options);
  for (const std::string& w : report.warnings) std::cerr << "nmt: warning: " << w << "\n";
  const models::ModelConfig& c = report.description.config;
  std::cout << "converted " << options.source_dir << " -> " << options.output_dir << ": " << report.tensors
            << " tensors, " << report.parameters << " parameters (" << models::dtype_name(report.dtype)
            << "), d_model " << c.d_model << ", " << c.encoder_layers << "+" << c.decoder_layers
            << " layers, vocab " << c.src_vocab_size << "/" << c.tgt_vocab_size << ", languages "
            << or_unknown(report.description.source_lang) << " -> "
            << or_unknown(report.description.target_lang) << "\n";
  if (report.description.source_lang.empty()) {
    std::cerr << "nmt: warning: " << options.source_dir
              << " does not state its source language: sentence splitting will use no abbreviation list; "
                 "give it with --source-lang\n";
  }
  return 0;
}

}  // namespace cli
