#include "cli/commands/attention_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include "cli/commands/model_option.h"
#include "cli/commands/option_flags.h"
#include "cli/commands/usage.h"
#include "cli/io/attention_json.h"
#include "cli/io/output_target.h"
#include "core/error.h"
#include "core/threads.h"
#include "core/utf8_text.h"
#include "front/attention_svg.h"
#include "front/model_path.h"
#include "front/translate_flags.h"
#include "tokenizer/sentence_splitter.h"

namespace cli {

namespace {

constexpr size_t kMaxStdinBytes = 1 << 20;  // far more than one sentence a model takes

// Standard input as one text: lines joined by spaces, outer whitespace trimmed.
std::string read_stdin_text() {
  std::string text;
  char buffer[65536];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (text.size() > kMaxStdinBytes)
      throw core::UsageError("standard input is over 1 MiB: give one sentence");
  }
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// The first sentence of `text` as translate splits it; warns when there are more.
std::string first_sentence(const std::string& text, const std::string& language) {
  const std::vector<tokenizer::Span> sentences = tokenizer::SentenceSplitter(language).split(text);
  if (sentences.size() <= 1) return text;
  const std::string first = text.substr(sentences[0].begin, sentences[0].end - sentences[0].begin);
  std::cerr << "nmt: warning: the text holds " << sentences.size()
            << " sentences; attention is shown for the first only: \"" << first << "\"\n";
  return first;
}

}  // namespace

CLI::App* add_attention_command(CLI::App& app, AttentionCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "attention", "Translate one sentence and draw its attention (SVG) or write it (JSON)");
  cmd->footer(
      "Examples:\n"
      "  nmt attention \"A man rides a bike.\" -o attn.svg\n"
      "  nmt attention --kind encoder --layer 0 \"A dog runs.\" -o enc.svg\n"
      "  echo 'A dog runs.' | nmt attention --format json > attn.json\n"
      "Layers and heads count from 0. By default every layer and head of the cross-attention is drawn, with\n"
      "each layer's mean over its heads framed in bold.");
  cmd->add_option("text", o.text, "The sentence to translate (default: standard input)")->type_name("TEXT");
  add_model_option(*cmd, o.model_dir);
  cmd->add_option("-o,--output", o.output,
                  "Output file, '-' for stdout; replaced whole when complete, as with translate")
      ->capture_default_str()
      ->type_name("FILE");
  cmd->add_option("--format", o.format, "svg: a heatmap; json: every layer's and head's weights")
      ->check(CLI::IsMember({"svg", "json"}))
      ->capture_default_str();
  cmd->add_option("--kind", o.view.kind,
                  "Which attention the SVG draws: cross (target to source), encoder or decoder")
      ->check(CLI::IsMember({"cross", "encoder", "decoder"}))
      ->capture_default_str();
  int_in_range(cmd->add_option("--layer", o.view.layer, "Only this layer (default: all)"), 0, 1 << 10);
  int_in_range(cmd->add_option("--head", o.view.head, "Only this head (default: all, and their mean)"), 0,
               1 << 10);
  add_option_flags(*cmd, o.flags, /*attention_only=*/true);
  return cmd;
}

int run_attention(const AttentionCommandOptions& options) {
  AttentionCommandOptions o = options;
  if (o.model_dir.empty()) o.model_dir = front::default_model_dir();
  std::string text = o.text.empty() ? read_stdin_text() : o.text;
  text = core::sanitize_utf8(text);
  if (text.empty()) throw core::UsageError("no text: give a sentence, or one on standard input");
  OutputTarget output = OutputTarget::open(o.output);  // before the model loads: a bad -o fails fast
  core::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const pipeline::Translator translator(o.model_dir);
  const models::ModelConfig& c = translator.model().config();
  const bool json = o.format == "json";
  // JSON writes every kind, so --layer must exist in each.
  const int n_layers = json                       ? std::min(c.encoder_layers, c.decoder_layers)
                       : o.view.kind == "encoder" ? c.encoder_layers
                                                  : c.decoder_layers;
  if (o.view.layer >= n_layers) {
    throw core::UsageError("--layer " + std::to_string(o.view.layer) + ": the model's " +
                           (json ? std::string("encoder and decoder") : o.view.kind) +
                           " attention has layers 0.." + std::to_string(n_layers - 1));
  }
  if (!json && o.view.kind == "decoder" && c.decoder_recurrence == models::DecoderRecurrence::kSsru)
    throw core::UsageError(
        "--kind decoder: the model's decoder has no self-attention (its layers are SSRUs)");
  if (o.view.head >= c.n_heads) {
    throw core::UsageError("--head " + std::to_string(o.view.head) + ": the model has heads 0.." +
                           std::to_string(c.n_heads - 1));
  }
  front::TranslateFlags flags = o.flags;
  flags.set("split_sentences", false);  // one sentence is drawn
  const pipeline::TranslateOptions translate = front::resolve_translate_flags(flags, translator);
  text = first_sentence(text, translate.source_lang);
  models::AttentionRequest request;  // the SVG draws one kind: only that one is recorded
  request.cross = json || o.view.kind == "cross";
  request.encoder = json || o.view.kind == "encoder";
  request.decoder = json || o.view.kind == "decoder";
  request.layer = o.view.layer;  // only the layer written is recorded
  const pipeline::AttentionTranslation t =
      pipeline::translate_with_attention(translator, text, translate, request);
  if (json) {
    write_attention_json(t, {o.view.layer, o.view.head}, output);
  } else {
    std::istringstream lines(front::attention_svg(t, text, o.view));
    for (std::string line; std::getline(lines, line);) output.write_line(line, LineEnding::kLf);
  }
  output.commit();
  return 0;
}

}  // namespace cli
