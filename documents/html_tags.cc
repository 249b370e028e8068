#include "documents/html_tags.h"

#include <cstring>
#include <sstream>
#include <string>

namespace documents {

namespace {

bool attribute_is(const GumboElement& element, const char* name, std::string_view value) {
  const GumboAttribute* attribute = gumbo_get_attribute(&element.attributes, name);
  return attribute != nullptr && attribute->value == value;
}

bool has_class(const GumboElement& element, const std::string& wanted) {
  const GumboAttribute* attribute = gumbo_get_attribute(&element.attributes, "class");
  if (attribute == nullptr) return false;
  std::istringstream classes(attribute->value);
  for (std::string name; classes >> name;) {
    if (name == wanted) return true;
  }
  return false;
}

}  // namespace

bool never_translated_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_KBD:
    case GUMBO_TAG_SAMP:
    case GUMBO_TAG_VAR:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_TEMPLATE:
      return true;
    default:
      return false;
  }
}

bool never_translated(const GumboElement& element) {
  if (never_translated_tag(element.tag)) return true;
  if (element.tag_namespace == GUMBO_NAMESPACE_SVG || element.tag_namespace == GUMBO_NAMESPACE_MATHML)
    return true;
  return attribute_is(element, "translate", "no") || has_class(element, "notranslate");
}

bool is_inline(const GumboElement& element) { return is_inline_tag(element.tag); }

bool is_inline_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_ABBR:
    case GUMBO_TAG_ACRONYM:
    case GUMBO_TAG_B:
    case GUMBO_TAG_BDI:
    case GUMBO_TAG_BDO:
    case GUMBO_TAG_BIG:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_CITE:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_DATA:
    case GUMBO_TAG_DEL:
    case GUMBO_TAG_DFN:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_I:
    case GUMBO_TAG_IMG:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_INS:
    case GUMBO_TAG_KBD:
    case GUMBO_TAG_LABEL:
    case GUMBO_TAG_MARK:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_Q:
    case GUMBO_TAG_RUBY:
    case GUMBO_TAG_RP:
    case GUMBO_TAG_RT:
    case GUMBO_TAG_S:
    case GUMBO_TAG_SAMP:
    case GUMBO_TAG_SMALL:
    case GUMBO_TAG_SPAN:
    case GUMBO_TAG_STRIKE:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_SUB:
    case GUMBO_TAG_SUP:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_TIME:
    case GUMBO_TAG_TT:
    case GUMBO_TAG_U:
    case GUMBO_TAG_VAR:
    case GUMBO_TAG_WBR:
    case GUMBO_TAG_UNKNOWN:  // custom elements: most are inline widgets
      return true;
    default:
      return false;
  }
}

bool is_void(const GumboElement& element) {
  return element.tag == GUMBO_TAG_BR || element.tag == GUMBO_TAG_IMG || element.tag == GUMBO_TAG_WBR ||
         element.tag == GUMBO_TAG_INPUT;
}

bool is_translated_attribute(std::string_view name) {
  return name == "alt" || name == "title" || name == "placeholder" || name == "aria-label";
}

}  // namespace documents
