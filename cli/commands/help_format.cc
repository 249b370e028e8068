#include "cli/commands/help_format.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

namespace cli {

namespace {

constexpr std::size_t kNameColumn = 30;  // CLI11's column for option help
constexpr std::size_t kNarrowest = kNameColumn + 20;

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;  // UTF-8 lead bytes
  return n;
}

// Continuation lines start under the text: after the leading spaces, or for "  NAME  text" (a table
// row) after the gap that follows NAME.
std::size_t hanging_indent(const std::string& line) {
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  const std::size_t gap = line.find("  ", indent);
  if (indent == 0 || gap == std::string::npos) return indent;
  const std::size_t text = line.find_first_not_of(' ', gap);
  return text == std::string::npos ? indent : text;
}

// Breaks at single spaces only, so runs of spaces (column gaps) stay as written.
std::string wrap_line(const std::string& line, std::size_t width) {
  if (display_width(line) <= width) return line;
  const std::size_t indent = hanging_indent(line);
  std::string out;
  std::size_t column = 0, start = 0;
  bool broke = false;  // just broken: the space before the next word is the indentation
  while (start < line.size()) {
    std::size_t end = line.find(' ', start);
    if (end == std::string::npos) end = line.size();
    const std::string word = line.substr(start, end - start);
    const std::size_t w = display_width(word);
    if (!word.empty() && column > indent && column + 1 + w > width) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n" + std::string(indent, ' ');
      column = indent;
      broke = true;
    } else if (start > 0 && !broke) {
      out += ' ';
      ++column;
    }
    if (!word.empty()) broke = false;
    out += word;
    column += w;
    start = end + 1;
  }
  return out;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(std::size_t width) : width_(std::max(width, kNarrowest)) {
    column_width(kNameColumn);
  }
  std::string make_option_desc(const CLI::Option* option) const override {
    return wrap_text(CLI::Formatter::make_option_desc(option), width_ - kNameColumn);
  }
  std::string make_footer(const CLI::App* app) const override {
    const std::string footer = app->get_footer();
    return footer.empty() ? "" : wrap_text(footer, width_) + "\n";
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_text(CLI::Formatter::make_description(app), width_);
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap_text(sub->get_description(), width_ - kNameColumn), kNameColumn);
    return out.str();
  }

 private:
  std::size_t width_;
};

}  // namespace

const char* const kEnvironmentHelp =
    "Environment:\n"
    "  NMT_MODEL  the model directory when -m is not given\n"
    "  NMT_CPU    the kernels to use: avx512, avx2, blas or portable (default: the best this CPU runs)";

std::size_t help_width() {
  struct winsize ws {};
  if (::isatty(1) && ::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string wrap_text(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (start > 0) out += '\n';
    out += wrap_line(text.substr(start, end - start), width);
    start = end + 1;
  }
  return out;
}

std::shared_ptr<CLI::Formatter> wrapping_formatter(std::size_t width) {
  return std::make_shared<WrappingFormatter>(width);
}

}  // namespace cli
