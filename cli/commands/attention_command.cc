#include "cli/commands/attention_command.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include "cli/commands/model_path.h"
#include "cli/commands/usage.h"
#include "cli/io/attention_json.h"
#include "cli/io/output_target.h"
#include "cli/io/svg_heatmap.h"
#include "cli/io/utf8.h"
#include "cli/translate_flags.h"
#include "core/error.h"
#include "core/threads.h"
#include "tokenizer/sentence_splitter.h"

namespace cli {

namespace {

constexpr size_t kMaxStdinBytes = 1 << 20;  // far more than one sentence a model takes
constexpr size_t kMaxDrawnPieces = 300;     // a side of the SVG: beyond it cells are too small to read

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

// A piece as a reader sees it: SentencePiece's word marker U+2581 dropped, a lone marker shown as U+2423.
std::string display_piece(const std::string& piece) {
  static const std::string kMarker = "\xE2\x96\x81";
  std::string shown;
  for (size_t at = 0; at < piece.size();) {
    if (piece.compare(at, kMarker.size(), kMarker) == 0) {
      at += kMarker.size();
    } else {
      shown += piece[at++];
    }
  }
  return shown.empty() && !piece.empty() ? "\xE2\x90\xA3" : shown;
}

std::vector<std::string> display_pieces(const std::vector<std::string>& pieces) {
  std::vector<std::string> shown;
  for (const std::string& p : pieces) shown.push_back(display_piece(p));
  return shown;
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

std::string quoted(const std::string& s) {
  constexpr size_t kLongest = 60;  // characters of each text in the caption
  std::string cut = s;
  if (cut.size() > kLongest) {
    size_t end = kLongest;
    while (end > 0 && (static_cast<unsigned char>(cut[end]) & 0xc0) == 0x80) --end;
    cut = cut.substr(0, end) + "\xE2\x80\xA6";
  }
  return "\xE2\x80\x9C" + cut + "\xE2\x80\x9D";
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
  cmd->add_option("--kind", o.kind,
                  "Which attention the SVG draws: cross (target to source), encoder or decoder")
      ->check(CLI::IsMember({"cross", "encoder", "decoder"}))
      ->capture_default_str();
  int_in_range(cmd->add_option("--layer", o.layer, "Only this layer (default: all)"), 0, 1 << 10);
  int_in_range(cmd->add_option("--head", o.head, "Only this head (default: all, and their mean)"), 0,
               1 << 10);
  add_option_flags(*cmd, o.flags, /*attention_only=*/true);
  return cmd;
}

std::string attention_svg(const pipeline::AttentionTranslation& t, const std::string& source_text,
                          const AttentionCommandOptions& o) {
  const models::AttentionMatrices& m = t.attention;
  HeatmapFigure f;
  const std::vector<std::vector<float>>* kind = &m.cross;
  std::string name = "Cross-attention";
  const std::vector<std::string> source = display_pieces(t.source_tokens);
  const std::vector<std::string> target = display_pieces(t.target_tokens);
  f.row_labels = target;
  f.column_labels = source;
  if (o.kind == "encoder") {
    kind = &m.encoder;
    name = "Encoder self-attention";
    f.row_labels = source;
  } else if (o.kind == "decoder") {
    kind = &m.decoder;
    name = "Decoder self-attention";
    // Query i chose target token i; key j is the token fed at step j: the start token, then the choices.
    f.column_labels = {"<s>"};
    f.column_labels.insert(f.column_labels.end(), target.begin(), target.end() - 1);
  }
  if (f.row_labels.size() > kMaxDrawnPieces || f.column_labels.size() > kMaxDrawnPieces) {
    throw core::UsageError("the SVG draws at most " + std::to_string(kMaxDrawnPieces) +
                           " pieces a side; this sentence has " + std::to_string(f.column_labels.size()) +
                           " x " + std::to_string(f.row_labels.size()) + ": use --format json");
  }
  f.caption = name + ": " + quoted(source_text) + " \xE2\x86\x92 " + quoted(t.text);
  const int rows = static_cast<int>(f.row_labels.size()), cols = static_cast<int>(f.column_labels.size());
  const size_t cells = static_cast<size_t>(rows) * cols;
  const int n_layers = static_cast<int>(kind->size());
  for (int l = 0; l < n_layers; ++l) {
    if (o.layer >= 0 && l != o.layer) continue;
    const std::vector<float>& w = (*kind)[l];
    for (int h = 0; h < m.n_heads; ++h) {
      if (o.head >= 0 && h != o.head) continue;
      f.panels.push_back({"layer " + std::to_string(l) + " \xC2\xB7 head " + std::to_string(h),
                          std::vector<float>(w.begin() + h * cells, w.begin() + (h + 1) * cells), false});
    }
    if (o.head < 0) {
      HeatmapPanel mean{"layer " + std::to_string(l) + " \xC2\xB7 mean", std::vector<float>(cells), true};
      for (int h = 0; h < m.n_heads; ++h) {
        for (size_t i = 0; i < cells; ++i)
          mean.weights[i] += w[h * cells + i] / static_cast<float>(m.n_heads);
      }
      f.panels.push_back(std::move(mean));
    }
  }
  f.panels_per_row = o.head < 0 ? m.n_heads + 1 : std::max(1, static_cast<int>(f.panels.size()));
  return render_heatmap_svg(f);
}

int run_attention(const AttentionCommandOptions& options) {
  AttentionCommandOptions o = options;
  if (o.model_dir.empty()) o.model_dir = default_model_dir();
  std::string text = o.text.empty() ? read_stdin_text() : o.text;
  text = sanitize_utf8(text);
  if (text.empty()) throw core::UsageError("no text: give a sentence, or one on standard input");
  OutputTarget output = OutputTarget::open(o.output);  // before the model loads: a bad -o fails fast
  core::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const pipeline::Translator translator(o.model_dir);
  const models::ModelConfig& c = translator.model().config();
  const bool json = o.format == "json";
  // JSON writes every kind, so --layer must exist in each.
  const int n_layers = json                  ? std::min(c.encoder_layers, c.decoder_layers)
                       : o.kind == "encoder" ? c.encoder_layers
                                             : c.decoder_layers;
  if (o.layer >= n_layers) {
    throw core::UsageError("--layer " + std::to_string(o.layer) + ": the model's " +
                           (json ? std::string("encoder and decoder") : o.kind) +
                           " attention has layers 0.." + std::to_string(n_layers - 1));
  }
  if (o.head >= c.n_heads) {
    throw core::UsageError("--head " + std::to_string(o.head) + ": the model has heads 0.." +
                           std::to_string(c.n_heads - 1));
  }
  TranslateFlags flags = o.flags;
  flags.set("split_sentences", false);  // one sentence is drawn
  const pipeline::TranslateOptions translate = resolve_translate_flags(flags, translator);
  text = first_sentence(text, translate.source_lang);
  models::AttentionRequest request;  // the SVG draws one kind: only that one is recorded
  request.cross = json || o.kind == "cross";
  request.encoder = json || o.kind == "encoder";
  request.decoder = json || o.kind == "decoder";
  request.layer = o.layer;  // only the layer written is recorded
  const pipeline::AttentionTranslation t =
      pipeline::translate_with_attention(translator, text, translate, request);
  if (json) {
    write_attention_json(t, {o.layer, o.head}, output);
  } else {
    std::istringstream lines(attention_svg(t, text, o));
    for (std::string line; std::getline(lines, line);) output.write_line(line, LineEnding::kLf);
  }
  output.commit();
  return 0;
}

}  // namespace cli
