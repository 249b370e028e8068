// Attention heatmaps as one self-contained SVG: panels of cells in a grid, row labels on the left, column
// labels above each panel, a colour legend, each cell's weight in its <title> (shown on hover).
#pragma once

#include <string>
#include <vector>

namespace front {

struct HeatmapPanel {
  std::string title;           // "layer 2 · head 0"
  std::vector<float> weights;  // [rows, cols] row-major, each in 0..1
  bool emphasised = false;     // a heavier frame and a bold title (the mean of the heads)
};

struct HeatmapFigure {
  std::string caption;                     // one line above the panels
  std::vector<std::string> row_labels;     // one per row, e.g. target pieces
  std::vector<std::string> column_labels;  // one per column, e.g. source pieces
  int panels_per_row = 1;
  std::vector<HeatmapPanel> panels;
};

std::string render_heatmap_svg(const HeatmapFigure& figure);

// `text` with &, <, >, " and ' escaped and characters XML cannot hold replaced by U+FFFD.
std::string xml_escape(const std::string& text);

}  // namespace front
