#include "cli/convert_command.h"

#include <iostream>

#include "core/error.h"
#include "models/convert/convert_hf_marian.h"

namespace cli {

CLI::App* add_convert_command(CLI::App& app, ConvertCommandOptions& o) {
  CLI::App* cmd =
      app.add_subcommand("convert", "Import an OPUS-MT / Marian model into an nmt model directory");
  cmd->footer(
      "Source layouts:\n"
      "  hf-marian   a Hugging Face MarianMT checkpoint: config.json, model.safetensors, source.spm,\n"
      "              target.spm, vocab.json [, target_vocab.json, generation_config.json]\n"
      "              (only pytorch_model.bin? run tools/bin_to_safetensors.py on it first)\n"
      "  marian-npz  an unpacked native Marian release: *.npz, decoder.yml, vocabulary (.yml or .spm),\n"
      "              source.spm, target.spm\n"
      "Anything the checkpoint format cannot represent is refused with a message naming it; decoding\n"
      "settings it cannot carry over are reported as warnings. See docs/convert.md.\n"
      "\n"
      "Examples:\n"
      "  nmt convert --from hf-marian opus-mt-en-de/ -o models/en-de\n"
      "  nmt convert --from marian-npz opus-2020-02-26/ -o models/en-de --dtype f16\n"
      "  nmt convert --from marian-npz release/ --npz model2.npz --vocab release/opus.vocab.yml -o out\n"
      "  nmt translate -m models/en-de < in.txt > out.txt");
  cmd->add_option("--from", o.from, "Source layout: hf-marian or marian-npz")
      ->required()
      ->check(CLI::IsMember({"hf-marian", "marian-npz"}));
  cmd->add_option("source", o.source_dir, "The model directory to import")->required();
  cmd->add_option("-o,--output", o.output_dir, "Output model directory (must be new or empty unless --force)")
      ->required();
  cmd->add_option("--dtype", o.dtype,
                  "Weight type written: f32 or f16 (default: f16 if the source is all f16, else f32)")
      ->check(CLI::IsMember({"f32", "f16"}));
  cmd->add_flag("--force", o.force, "Write into a non-empty output directory, replacing its model files");
  cmd->add_option("--npz", o.marian.npz,
                  "marian-npz: the .npz model (default: decoder.yml's, else the only *.npz)");
  cmd->add_option("--vocab", o.vocab, "marian-npz: vocabulary for both sides (.yml, .json or .spm)");
  cmd->add_option("--source-vocab", o.marian.source_vocab,
                  "marian-npz: source vocabulary (default: decoder.yml's)");
  cmd->add_option("--target-vocab", o.marian.target_vocab,
                  "marian-npz: target vocabulary (default: decoder.yml's)");
  cmd->add_option("--source-spm", o.marian.source_spm,
                  "marian-npz: source SentencePiece model (default: source.spm)");
  cmd->add_option("--target-spm", o.marian.target_spm,
                  "marian-npz: target SentencePiece model (default: target.spm)");
  return cmd;
}

int run_convert(const ConvertCommandOptions& options) {
  models::ConvertOptions co;
  co.output_dir = options.output_dir;
  co.force = options.force;
  co.dtype = options.dtype == "f32"   ? models::ConvertDType::kF32
             : options.dtype == "f16" ? models::ConvertDType::kF16
                                      : models::ConvertDType::kKeep;
  models::ConvertReport report;
  if (options.from == "hf-marian") {
    const models::MarianFiles& m = options.marian;
    if (!m.npz.empty() || !options.vocab.empty() || !m.source_vocab.empty() || !m.target_vocab.empty() ||
        !m.source_spm.empty() || !m.target_spm.empty()) {
      throw core::UsageError(
          "--npz, --vocab, --source-vocab, --target-vocab, --source-spm and --target-spm "
          "are for --from marian-npz");
    }
    report = models::convert_hf_marian(options.source_dir, co);
  } else {
    models::MarianFiles files = options.marian;
    if (!options.vocab.empty()) {
      if (!files.source_vocab.empty() || !files.target_vocab.empty()) {
        throw core::UsageError(
            "--vocab sets both vocabularies: do not combine it with --source-vocab/--target-vocab");
      }
      files.source_vocab = files.target_vocab = options.vocab;
    }
    report = models::convert_marian_npz(options.source_dir, files, co);
  }
  for (const std::string& w : report.warnings) std::cerr << "nmt: warning: " << w << "\n";
  const models::ModelConfig& c = report.description.config;
  std::cout << "converted " << options.source_dir << " -> " << options.output_dir << ": " << report.tensors
            << " tensors, " << report.parameters << " parameters ("
            << (report.dtype == models::DType::kF16 ? "f16" : "f32") << "), d_model " << c.d_model << ", "
            << c.encoder_layers << "+" << c.decoder_layers << " layers, vocab " << c.src_vocab_size << "/"
            << c.tgt_vocab_size << "\n";
  return 0;
}

}  // namespace cli
