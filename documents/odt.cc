#include "documents/odt.h"

#include "documents/office_package.h"

namespace documents {

namespace {

bool is_inline_element(const std::string& name) {
  return name == "text:span" || name == "text:a" || name == "text:ruby-base";
}

void read_content(OfficeParagraph& p, const pugi::xml_node& parent) {
  for (pugi::xml_node child : parent.children()) {
    if (child.type() == pugi::node_pcdata || child.type() == pugi::node_cdata) {
      p.segment.text += child.value();
      continue;
    }
    if (child.type() != pugi::node_element) continue;
    const std::string name = child.name();
    const size_t index = p.nodes.size();
    p.nodes.push_back(child);
    if (name == "text:s") {  // runs of spaces read as one
      if (!p.segment.text.empty() && p.segment.text.back() != ' ') p.segment.text += ' ';
    } else if (is_inline_element(name)) {
      const size_t element = p.segment.open_element(marker('E', index));
      read_content(p, child);
      p.segment.close_element(element, marker('e', index));
    } else {
      p.segment.insert(marker('I', index));
      if ((name == "text:tab" || name == "text:line-break") && !p.segment.text.empty() &&
          p.segment.text.back() != ' ')
        p.segment.text += ' ';
    }
  }
}

void collect_paragraphs(const pugi::xml_node& node, std::vector<OfficeParagraph>& out) {
  for (pugi::xml_node child : node.children()) {
    const std::string name = child.name();
    if (name == "text:p" || name == "text:h") {
      // A footnote's, an annotation's or a text frame's paragraphs come first: this paragraph holds them
      // as insertions, copied once they are translated (translate_office_package rebuilds in this order).
      collect_paragraphs(child, out);
      OfficeParagraph p;
      p.node = child;
      read_content(p, child);
      if (tidy_paragraph_text(p.segment)) out.push_back(std::move(p));
    } else {
      collect_paragraphs(child, out);
    }
  }
}

// The paragraph rebuilt from its projected translation beside the original (whose nodes it copies), then
// in its place.
void rebuild(OfficeParagraph& p, const std::string& projected) {
  pugi::xml_node fresh = p.node.parent().insert_child_after(p.node.name(), p.node);
  for (pugi::xml_attribute a : p.node.attributes()) fresh.append_attribute(a.name()) = a.value();
  std::vector<pugi::xml_node> containers = {fresh};
  const auto on_marker = [&](char kind, const pugi::xml_node& source) {
    if (kind == 'E') {
      pugi::xml_node element = containers.back().append_child(source.name());
      for (pugi::xml_attribute a : source.attributes()) element.append_attribute(a.name()) = a.value();
      containers.push_back(element);
    } else if (kind == 'e') {
      if (containers.size() > 1) containers.pop_back();
    } else {
      containers.back().append_copy(source);
    }
  };
  const auto on_text = [&](const std::string& text) {
    containers.back().append_child(pugi::node_pcdata).set_value(text.c_str());
  };
  walk_projected(projected, p, on_marker, on_text);
  p.node.parent().remove_child(p.node);
}

}  // namespace

std::string translate_odt(std::string_view bytes, const std::string& name, std::vector<std::string>* warnings,
                          const SegmentTranslator& translate, uint64_t max_inflated,
                          const std::string& language) {
  OfficeFormat format;
  format.metadata_member = "meta.xml";
  format.main_member = "content.xml";
  format.is_translated = [](const std::string& member) {
    return member == "content.xml" || member == "styles.xml";
  };
  format.collect = collect_paragraphs;
  format.rebuild = rebuild;
  return translate_office_package(bytes, name, warnings, translate, format, max_inflated, language);
}

}  // namespace documents
