#include "documents/office_metadata.h"

#include <algorithm>

namespace documents {
namespace {

// Walks every element under `root` without recursion (a part may nest deeper than the stack allows).
template <class Visit>
void each_element(pugi::xml_node root, const Visit& visit) {
  for (pugi::xml_node node = root.first_child(); node;) {
    if (node.type() == pugi::node_element) visit(node);
    if (node.first_child()) {
      node = node.first_child();
      continue;
    }
    while (node && !node.next_sibling() && node != root) node = node.parent();
    if (!node || node == root) break;
    node = node.next_sibling();
  }
}

bool is_translated_field(const char* name) {
  static const char* const fields[] = {"dc:title", "dc:subject", "dc:description"};
  return std::any_of(std::begin(fields), std::end(fields),
                     [&](const char* f) { return std::string(f) == name; });
}

}  // namespace

std::vector<MetadataField> metadata_fields(const pugi::xml_document& doc) {
  std::vector<MetadataField> fields;
  each_element(doc, [&](pugi::xml_node node) {
    if (!is_translated_field(node.name())) return;
    const pugi::xml_node text = node.first_child();
    if (!text || text.next_sibling() || text.type() != pugi::node_pcdata) return;  // plain text alone
    MetadataField field{node, {}};
    field.segment.text = text.value();
    for (char& c : field.segment.text) {
      if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    }
    if (field.segment.text.find_first_not_of(' ') != std::string::npos) fields.push_back(std::move(field));
  });
  return fields;
}

void set_metadata(std::vector<MetadataField>& fields, const std::vector<std::string>& translations,
                  pugi::xml_document& doc, const std::string& language) {
  for (size_t i = 0; i < fields.size() && i < translations.size(); ++i)
    fields[i].node.first_child().set_value(translations[i].c_str());
  if (language.empty()) return;
  each_element(doc, [&](pugi::xml_node node) {
    if (std::string(node.name()) != "dc:language") return;
    while (node.first_child()) node.remove_child(node.first_child());
    node.append_child(pugi::node_pcdata).set_value(language.c_str());
  });
}

void set_run_languages(pugi::xml_document& doc, const std::vector<std::string>& elements,
                       const char* attribute, const std::string& language) {
  if (language.empty()) return;
  each_element(doc, [&](pugi::xml_node node) {
    if (std::find(elements.begin(), elements.end(), node.name()) == elements.end()) return;
    if (pugi::xml_attribute a = node.attribute(attribute)) a.set_value(language.c_str());
  });
}

}  // namespace documents
