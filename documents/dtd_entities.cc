#include "documents/dtd_entities.h"

#include <cctype>

namespace documents {
namespace {

// `{%` U+E000 N `%}`: a template tag to protect_spans(), with a private-use character no document holds.
constexpr std::string_view kTokenOpen = "{%\xEE\x80\x80";
constexpr std::string_view kTokenClose = "%}";

bool is_entity_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':' ||
         static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

std::string hide_dtd_entities(std::string_view xml, std::vector<std::string>* entities) {
  entities->clear();
  const size_t doctype = xml.find("<!DOCTYPE");
  if (doctype == std::string_view::npos || xml.find("<!ENTITY", doctype) == std::string_view::npos)
    return std::string(xml);
  size_t body = xml.find("]>", doctype);
  body = body == std::string_view::npos ? xml.size() : body + 2;
  std::string out(xml.substr(0, body));
  for (size_t i = body; i < xml.size();) {
    const size_t amp = xml.find('&', i);
    if (amp == std::string_view::npos) {
      out.append(xml.substr(i));
      break;
    }
    out.append(xml.substr(i, amp - i));
    size_t end = amp + 1;
    while (end < xml.size() && is_entity_name_char(xml[end])) ++end;
    const std::string_view name = xml.substr(amp + 1, end - amp - 1);
    const bool predefined = name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos";
    if (end < xml.size() && xml[end] == ';' && !name.empty() && !predefined) {
      entities->emplace_back(xml.substr(amp, end + 1 - amp));
      out.append(kTokenOpen).append(std::to_string(entities->size() - 1)).append(kTokenClose);
      i = end + 1;
    } else {
      out += '&';
      i = amp + 1;
    }
  }
  return out;
}

std::string restore_dtd_entities(std::string_view xml, const std::vector<std::string>& entities) {
  if (entities.empty()) return std::string(xml);
  std::string out;
  out.reserve(xml.size());
  for (size_t i = 0; i < xml.size();) {
    const size_t open = xml.find(kTokenOpen, i);
    if (open == std::string_view::npos) {
      out.append(xml.substr(i));
      break;
    }
    out.append(xml.substr(i, open - i));
    size_t end = open + kTokenOpen.size(), number = 0;
    bool digits = false;
    while (end < xml.size() && std::isdigit(static_cast<unsigned char>(xml[end]))) {
      number = number * 10 + static_cast<size_t>(xml[end++] - '0');
      digits = true;
    }
    if (digits && number < entities.size() && xml.substr(end, kTokenClose.size()) == kTokenClose) {
      out.append(entities[number]);
      i = end + kTokenClose.size();
    } else {
      out.append(kTokenOpen);
      i = open + kTokenOpen.size();
    }
  }
  return out;
}

}  // namespace documents
