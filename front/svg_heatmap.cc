#include "front/svg_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace front {

namespace {

// ColorBrewer's sequential "Blues": light for little weight, dark for much, readable in grey too.
constexpr unsigned kRamp[] = {0xf7fbff, 0xdeebf7, 0xc6dbef, 0x9ecae1, 0x6baed6,
                              0x4292c6, 0x2171b5, 0x08519c, 0x08306b};
constexpr int kRampSteps = sizeof(kRamp) / sizeof(kRamp[0]);

std::string colour(float weight) {
  const float x = std::clamp(std::isfinite(weight) ? weight : 0.0f, 0.0f, 1.0f) * (kRampSteps - 1);
  const int i = std::min(static_cast<int>(x), kRampSteps - 2);
  const float f = x - static_cast<float>(i);
  char out[8];
  unsigned rgb[3];
  for (int c = 0; c < 3; ++c) {
    const int shift = 16 - 8 * c;
    const float a = static_cast<float>((kRamp[i] >> shift) & 0xff),
                b = static_cast<float>((kRamp[i + 1] >> shift) & 0xff);
    rgb[c] = static_cast<unsigned>(std::lround(a + (b - a) * f));
  }
  std::snprintf(out, sizeof out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return out;
}

// Code points, for estimating a label's width.
size_t characters(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

std::string number(double x) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", x);
  return out;
}

std::string weight_text(float w) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", w);
  return out;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t')
          out += "\xEF\xBF\xBD";  // XML 1.0 cannot hold control characters
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string render_heatmap_svg(const HeatmapFigure& f) {
  const int rows = static_cast<int>(f.row_labels.size());
  const int cols = static_cast<int>(f.column_labels.size());
  const int n_panels = static_cast<int>(f.panels.size());
  if (n_panels == 0 || rows == 0 || cols == 0) throw std::invalid_argument("heatmap: nothing to draw");
  for (const HeatmapPanel& p : f.panels) {
    if (p.weights.size() != static_cast<size_t>(rows) * cols)
      throw std::invalid_argument("heatmap: panel size");
  }
  const int per_row = std::clamp(f.panels_per_row, 1, n_panels);
  const int grid_rows = (n_panels + per_row - 1) / per_row;
  // One big panel gets big cells; small multiples get small ones.
  const double cell = n_panels == 1 ? 28.0 : 16.0;
  const double font = n_panels == 1 ? 13.0 : 11.0;
  const double char_width = 0.62 * font;  // sans-serif average, generous
  size_t longest_row = 0, longest_col = 0;
  for (const auto& l : f.row_labels) longest_row = std::max(longest_row, characters(l));
  for (const auto& l : f.column_labels) longest_col = std::max(longest_col, characters(l));
  const double margin = 14.0;
  const double row_label_w = longest_row * char_width + 8.0;
  // Column labels run up and to the right at 60 degrees.
  const double col_label_len = longest_col * char_width;
  const double col_label_h = col_label_len * 0.866 + 10.0;
  const double overhang = col_label_len * 0.5;  // how far the last label reaches past its column
  const double title_h = font + 10.0;
  const double caption_h = 26.0;
  const double panel_w = cols * cell, panel_h = rows * cell;
  size_t longest_title = 0;
  for (const HeatmapPanel& p : f.panels) longest_title = std::max(longest_title, characters(p.title));
  const double title_w = longest_title * (char_width + 0.6) + 4.0;  // titles are a size larger
  // Each panel's slot holds its title and the labels that overhang it.
  const double gap = std::max({24.0, overhang - (cols - 1) * cell + 12.0, title_w - panel_w + 12.0});
  const double block_h = title_h + col_label_h + panel_h + 18.0;
  const double legend_h = 52.0;
  const double width =
      std::max({margin * 2 + row_label_w + per_row * panel_w + (per_row - 1) * gap + overhang,
                margin * 2 + row_label_w + (per_row - 1) * (panel_w + gap) + title_w, margin * 2 + 520.0});
  const double height = margin + caption_h + grid_rows * block_h + legend_h;

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
       number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
       "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += "<text x=\"" + number(margin) + "\" y=\"" + number(margin + 14) +
       "\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(f.caption) + "</text>\n";
  for (int p = 0; p < n_panels; ++p) {
    const HeatmapPanel& panel = f.panels[p];
    const int gr = p / per_row, gc = p % per_row;
    const double x0 = margin + row_label_w + gc * (panel_w + gap);
    const double top = margin + caption_h + gr * block_h;
    const double y0 = top + title_h + col_label_h;
    s += "<g>\n<text x=\"" + number(x0) + "\" y=\"" + number(top + font + 2) + "\" font-size=\"" +
         number(font + 1) + "\"" + (panel.emphasised ? " font-weight=\"bold\"" : "") + ">" +
         xml_escape(panel.title) + "</text>\n";
    for (int j = 0; j < cols; ++j) {
      const double x = x0 + (j + 0.5) * cell + font * 0.3, y = y0 - 5.0;
      s += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"" + number(font) +
           "\" transform=\"rotate(-60 " + number(x) + " " + number(y) + ")\">" +
           xml_escape(f.column_labels[j]) + "</text>\n";
    }
    if (gc == 0) {
      for (int i = 0; i < rows; ++i) {
        s += "<text x=\"" + number(x0 - 5.0) + "\" y=\"" + number(y0 + (i + 0.5) * cell + font * 0.35) +
             "\" font-size=\"" + number(font) + "\" text-anchor=\"end\">" + xml_escape(f.row_labels[i]) +
             "</text>\n";
      }
    }
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        const float w = panel.weights[static_cast<size_t>(i) * cols + j];
        s += "<rect x=\"" + number(x0 + j * cell) + "\" y=\"" + number(y0 + i * cell) + "\" width=\"" +
             number(cell) + "\" height=\"" + number(cell) + "\" fill=\"" + colour(w) + "\"><title>" +
             xml_escape(f.row_labels[i]) + " \xE2\x86\x92 " + xml_escape(f.column_labels[j]) + ": " +
             weight_text(w) + "</title></rect>\n";
      }
    }
    s += "<rect x=\"" + number(x0) + "\" y=\"" + number(y0) + "\" width=\"" + number(panel_w) +
         "\" height=\"" + number(panel_h) + "\" fill=\"none\" stroke=\"" +
         (panel.emphasised ? "#000000\" stroke-width=\"2.5" : "#888888\" stroke-width=\"0.75") +
         "\"/>\n</g>\n";
  }
  // The legend: the colour ramp from 0 to 1 with ticks.
  const double lx = margin + row_label_w, ly = height - legend_h + 8.0, lw = 240.0, lh = 12.0;
  s += "<defs><linearGradient id=\"ramp\">";
  for (int i = 0; i < kRampSteps; ++i) {
    s += "<stop offset=\"" + number(100.0 * i / (kRampSteps - 1)) + "%\" stop-color=\"" +
         colour(static_cast<float>(i) / (kRampSteps - 1)) + "\"/>";
  }
  s += "</linearGradient></defs>\n";
  s += "<rect x=\"" + number(lx) + "\" y=\"" + number(ly) + "\" width=\"" + number(lw) + "\" height=\"" +
       number(lh) + "\" fill=\"url(#ramp)\" stroke=\"#888888\" stroke-width=\"0.75\"/>\n";
  const char* const kTicks[] = {"0", "0.25", "0.5", "0.75", "1"};
  for (int t = 0; t <= 4; ++t) {
    const double x = lx + lw * t / 4.0;
    s += "<line x1=\"" + number(x) + "\" y1=\"" + number(ly + lh) + "\" x2=\"" + number(x) + "\" y2=\"" +
         number(ly + lh + 4) + "\" stroke=\"#444444\"/>";
    s += "<text x=\"" + number(x) + "\" y=\"" + number(ly + lh + 16) +
         "\" font-size=\"11\" text-anchor=\"middle\">" + kTicks[t] + "</text>\n";
  }
  s += "<text x=\"" + number(lx + lw + 10) + "\" y=\"" + number(ly + lh - 1) +
       "\" font-size=\"11\">attention weight (hover a cell for its value)</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace front
