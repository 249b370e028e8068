// What a strict XML parser refuses and pugixml lets through: a second root element or text before or
// after the root, a duplicate attribute, '<' in an attribute value, '&' that starts no reference, "]]>" in
// text.
#pragma once

#include <cstddef>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>

namespace documents {

struct XmlFault {
  size_t offset = 0;  // in the source bytes the document was parsed from
  std::string reason;
};

// The first fault of `xml` as pugixml parsed it into `document` without decoding escapes; none when it
// is well-formed.
std::optional<XmlFault> first_xml_fault(std::string_view xml, const pugi::xml_document& document);

}  // namespace documents
