#include "front/attention_svg.h"

#include <algorithm>

#include "core/error.h"
#include "front/svg_heatmap.h"

namespace front {

namespace {

constexpr size_t kMaxDrawnPieces = 300;  // a side of the SVG: beyond it cells are too small to read

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

std::string attention_svg(const pipeline::AttentionTranslation& t, const std::string& source_text,
                          const AttentionView& o) {
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

}  // namespace front
