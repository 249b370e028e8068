#include "documents/lang_attributes.h"

#include <cctype>

namespace documents {
namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

char lower_char(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_ci(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (lower_char(text[at + i]) != prefix[i]) return false;
  }
  return true;
}

// Where the root start tag's '<' stands: past what may precede it; npos when another tag comes first.
size_t root_tag(std::string_view html) {
  size_t i = html.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  for (;;) {
    while (i < html.size() && space(html[i])) ++i;
    if (i >= html.size() || html[i] != '<') return std::string_view::npos;
    const bool comment = html.compare(i, 4, "<!--") == 0;
    if (!comment && html.compare(i, 2, "<!") != 0 && html.compare(i, 2, "<?") != 0)
      return starts_with_ci(html, i, "<html") && i + 5 < html.size() &&
                     (space(html[i + 5]) || html[i + 5] == '>' || html[i + 5] == '/')
                 ? i
                 : std::string_view::npos;
    const size_t end = comment ? html.find("-->", i + 4) : html.find('>', i);
    if (end == std::string_view::npos) return std::string_view::npos;
    i = end + (comment ? 3 : 1);
  }
}

}  // namespace

std::string retarget_root_language(std::string_view html, const std::string& language) {
  const size_t tag = language.empty() ? std::string_view::npos : root_tag(html);
  if (tag == std::string_view::npos) return std::string(html);
  std::string out(html.substr(0, tag + 5));
  size_t i = tag + 5;
  // Attributes as HTML tokenizes them: name, optional '=' and a quoted or bare value.
  while (i < html.size() && html[i] != '>') {
    if (space(html[i]) || html[i] == '/') {
      out += html[i++];
      continue;
    }
    const size_t name_begin = i;
    while (i < html.size() && !space(html[i]) && html[i] != '=' && html[i] != '>' && html[i] != '/') ++i;
    std::string name;
    for (size_t k = name_begin; k < i; ++k) name += lower_char(html[k]);
    out.append(html.substr(name_begin, i - name_begin));
    size_t j = i;
    while (j < html.size() && space(html[j])) ++j;
    if (j >= html.size() || html[j] != '=') continue;
    ++j;
    while (j < html.size() && space(html[j])) ++j;
    out.append(html.substr(i, j - i));  // the '=' and the spaces around it
    size_t value_begin = j, value_end = j;
    if (j < html.size() && (html[j] == '"' || html[j] == '\'')) {
      value_begin = j + 1;
      value_end = html.find(html[j], value_begin);
      if (value_end == std::string_view::npos) return std::string(html);  // the tag never ends: as it is
      out += html[j];
      i = value_end + 1;
    } else {
      while (value_end < html.size() && !space(html[value_end]) && html[value_end] != '>') ++value_end;
      i = value_end;
    }
    const bool declares = (name == "lang" || name == "xml:lang") && value_end > value_begin;
    out.append(declares ? std::string_view(language) : html.substr(value_begin, value_end - value_begin));
    if (i > value_end) out += html[value_end];  // the closing quote
  }
  out.append(html.substr(i));
  return out;
}

}  // namespace documents
