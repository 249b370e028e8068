#include "documents/xml_checks.h"

#include <cctype>
#include <cstring>
#include <set>

namespace documents {

namespace {

bool is_xml_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':' ||
         (static_cast<unsigned char>(c) & 0x80) != 0;
}

// Where in `text` an '&' starts no entity or character reference; npos when every one does.
size_t bad_reference(std::string_view text) {
  for (size_t at = text.find('&'); at != std::string_view::npos; at = text.find('&', at + 1)) {
    size_t i = at + 1;
    if (i < text.size() && text[i] == '#') {
      const bool hex = i + 1 < text.size() && text[i + 1] == 'x';
      i += hex ? 2 : 1;
      const size_t digits = i;
      while (i < text.size() && (hex ? std::isxdigit(static_cast<unsigned char>(text[i]))
                                     : std::isdigit(static_cast<unsigned char>(text[i]))))
        ++i;
      if (i == digits) return at;
    } else {
      const size_t name = i;
      while (i < text.size() && is_xml_name_char(text[i])) ++i;
      if (i == name || std::isdigit(static_cast<unsigned char>(text[name]))) return at;
    }
    if (i >= text.size() || text[i] != ';') return at;
  }
  return std::string_view::npos;
}

std::optional<XmlFault> check(const pugi::xml_node& node) {
  const size_t offset = node.offset_debug() < 0 ? 0 : static_cast<size_t>(node.offset_debug());
  if (node.type() == pugi::node_pcdata) {
    const std::string_view text = node.value();
    if (const size_t at = bad_reference(text); at != std::string_view::npos)
      return XmlFault{offset + at, "'&' starts no entity reference"};
    if (const size_t at = text.find("]]>"); at != std::string_view::npos)
      return XmlFault{offset + at, "']]>' in text"};
    return std::nullopt;
  }
  if (node.type() != pugi::node_element) return std::nullopt;
  std::set<std::string_view> names;
  for (pugi::xml_attribute a : node.attributes()) {
    if (!names.insert(a.name()).second)
      return XmlFault{offset, std::string("duplicate attribute ") + a.name()};
    const std::string_view value = a.value();
    if (value.find('<') != std::string_view::npos || bad_reference(value) != std::string_view::npos)
      return XmlFault{offset, std::string("'<' or a bare '&' in the value of ") + a.name()};
  }
  for (pugi::xml_node child : node.children()) {
    if (auto fault = check(child)) return fault;
  }
  return std::nullopt;
}

}  // namespace

std::optional<XmlFault> first_xml_fault(std::string_view xml, const pugi::xml_document& document) {
  // Text beside the root that pugixml drops: the document starts and ends with markup.
  const size_t first = xml.find_first_not_of(" \t\r\n", xml.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0);
  if (first != std::string_view::npos && xml[first] != '<')
    return XmlFault{first, "text before the root element"};
  const size_t last = xml.find_last_not_of(" \t\r\n");
  if (last != std::string_view::npos && xml[last] != '>')
    return XmlFault{last, "text after the root element"};
  int roots = 0;
  for (pugi::xml_node child : document.children()) {
    const size_t offset = child.offset_debug() < 0 ? 0 : static_cast<size_t>(child.offset_debug());
    if (child.type() == pugi::node_element && ++roots > 1) return XmlFault{offset, "a second root element"};
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      const std::string_view text = child.value();
      if (text.find_first_not_of(" \t\r\n") != std::string_view::npos)
        return XmlFault{offset, "text outside the root element"};
    }
    if (auto fault = check(child)) return fault;
  }
  if (roots == 0) return XmlFault{0, "no root element"};
  return std::nullopt;
}

}  // namespace documents
