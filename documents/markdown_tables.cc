#include "documents/markdown_tables.h"

#include <algorithm>

namespace documents {

namespace {

constexpr size_t kDashesMd4cNeeds = 3;

struct Line {
  size_t begin = 0, end = 0;  // without the line end
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> lines;
  for (size_t i = 0; i < text.size();) {
    size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    size_t end = nl;
    if (end > i && text[end - 1] == '\r') --end;
    lines.push_back({i, end});
    i = nl + 1;
  }
  return lines;
}

// A table row's content: up to 3 spaces of indentation dropped, "" when indented as code.
std::string_view row_content(std::string_view line) {
  size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  return indent > 3 ? std::string_view() : line.substr(indent);
}

// Cells of a row split at unescaped pipes, an outer pipe on either side not opening a cell.
size_t cell_count(std::string_view row) {
  while (!row.empty() && (row.back() == ' ' || row.back() == '\t')) row.remove_suffix(1);
  size_t pipes = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\') {
      ++i;
    } else if (row[i] == '|') {
      ++pipes;
    }
  }
  if (pipes == 0) return 0;
  size_t cells = pipes + 1;
  if (row.front() == '|') --cells;
  if (row.size() > 1 && row.back() == '|' && row[row.size() - 2] != '\\') --cells;
  return cells;
}

// The delimiter cells of a GitHub delimiter row ([begin, end) of each cell's `:-` run, relative to the
// row), or none when it is not one: `:?-+:?` cells between pipes and spaces, at least one pipe.
std::vector<std::pair<size_t, size_t>> delimiter_cells(std::string_view row) {
  std::vector<std::pair<size_t, size_t>> cells;
  bool pipe = false;
  size_t i = 0;
  const auto skip_spaces = [&] {
    while (i < row.size() && (row[i] == ' ' || row[i] == '\t')) ++i;
  };
  if (i < row.size() && row[i] == '|') pipe = true, ++i;
  for (;;) {
    skip_spaces();
    if (i == row.size()) break;
    const size_t begin = i;
    if (row[i] == ':') ++i;
    const size_t dashes = i;
    while (i < row.size() && row[i] == '-') ++i;
    if (i == dashes) return {};
    if (i < row.size() && row[i] == ':') ++i;
    cells.emplace_back(begin, i);
    skip_spaces();
    if (i == row.size()) break;
    if (row[i] != '|') return {};
    pipe = true;
    ++i;
  }
  if (!pipe || cells.empty()) return {};
  return cells;
}

}  // namespace

WidenedTables::WidenedTables(std::string_view markdown) : source_(markdown) {
  const std::vector<Line> lines = lines_of(markdown);
  std::string copy;
  size_t copied = 0;  // source bytes copied so far
  bool in_fence = false;
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = markdown.substr(lines[n].begin, lines[n].end - lines[n].begin);
    const std::string_view content = row_content(line);
    if (content.substr(0, 3) == "```" || content.substr(0, 3) == "~~~") in_fence = !in_fence;
    if (in_fence || n == 0) continue;
    const auto cells = delimiter_cells(content);
    if (cells.empty()) continue;
    const bool short_cell = std::any_of(cells.begin(), cells.end(),
                                        [](const auto& c) { return c.second - c.first < kDashesMd4cNeeds; });
    const std::string_view header =
        row_content(markdown.substr(lines[n - 1].begin, lines[n - 1].end - lines[n - 1].begin));
    if (!short_cell || cell_count(header) != cells.size()) continue;
    const size_t row_begin = lines[n].begin + static_cast<size_t>(content.data() - line.data());
    for (const auto& [begin, end] : cells) {
      if (end - begin >= kDashesMd4cNeeds) continue;
      // Dashes go before a closing colon, after the cell's first dash.
      size_t at = row_begin + end;
      if (markdown[at - 1] == ':') --at;
      copy.append(markdown.substr(copied, at - copied));
      copied = at;
      const size_t width = kDashesMd4cNeeds - (end - begin);
      added_.emplace_back(copy.size(), width);
      copy.append(width, '-');
    }
  }
  if (added_.empty()) return;
  copy.append(markdown.substr(copied));
  copy_ = std::move(copy);
}

size_t WidenedTables::source_offset(size_t offset) const {
  size_t shift = 0;
  for (const auto& [at, width] : added_) {
    if (offset <= at) break;
    if (offset < at + width) return at - shift;
    shift += width;
  }
  return offset - shift;
}

}  // namespace documents
