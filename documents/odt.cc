#include "documents/odt.h"

#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "documents/projection.h"
#include "documents/zip_package.h"

namespace documents {

namespace {

// Markers in a projected paragraph: kMark, a kind letter, a node index, kEnd. The model never writes them.
constexpr char kMark = '\x01';
constexpr char kEnd = '\x02';

std::string marker(char kind, size_t index) {
  return std::string(1, kMark) + kind + std::to_string(index) + kEnd;
}

bool is_inline_element(const std::string& name) {
  return name == "text:span" || name == "text:a" || name == "text:ruby-base";
}

struct Paragraph {
  pugi::xml_node node;
  std::vector<pugi::xml_node> nodes;  // what the markers' indices name
  Segment segment;
};

void read_content(Paragraph& p, const pugi::xml_node& parent) {
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

void collect_paragraphs(const pugi::xml_node& node, std::vector<Paragraph>& out) {
  for (pugi::xml_node child : node.children()) {
    const std::string name = child.name();
    if (name == "text:p" || name == "text:h") {
      Paragraph p;
      p.node = child;
      read_content(p, child);
      for (char& c : p.segment.text) {
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
      }
      if (p.segment.text.find_first_not_of(' ') != std::string::npos) out.push_back(std::move(p));
    } else {
      collect_paragraphs(child, out);
    }
  }
}

// The paragraph rebuilt from its projected translation beside the original (whose nodes it copies), then
// in its place.
void rebuild(Paragraph& p, const std::string& projected) {
  pugi::xml_node fresh = p.node.parent().insert_child_after(p.node.name(), p.node);
  for (pugi::xml_attribute a : p.node.attributes()) fresh.append_attribute(a.name()) = a.value();
  std::vector<pugi::xml_node> containers = {fresh};
  for (size_t i = 0; i < projected.size();) {
    if (projected[i] == kMark) {
      const size_t end = projected.find(kEnd, i);
      const char kind = projected[i + 1];
      const pugi::xml_node source = p.nodes.at(std::stoul(projected.substr(i + 2, end - i - 2)));
      i = end + 1;
      if (kind == 'E') {
        pugi::xml_node element = containers.back().append_child(source.name());
        for (pugi::xml_attribute a : source.attributes()) element.append_attribute(a.name()) = a.value();
        containers.push_back(element);
      } else if (kind == 'e') {
        if (containers.size() > 1) containers.pop_back();
      } else {
        containers.back().append_copy(source);
      }
      continue;
    }
    const size_t end = std::min(projected.find(kMark, i), projected.size());
    containers.back().append_child(pugi::node_pcdata).set_value(projected.substr(i, end - i).c_str());
    i = end;
  }
  p.node.parent().remove_child(p.node);
}

}  // namespace

std::string translate_odt(std::string_view bytes, const std::string& name, std::vector<std::string>* warnings,
                          const SegmentTranslator& translate) {
  ZipPackage package{std::string(bytes), name};
  std::map<std::string, pugi::xml_document> parts;
  std::vector<Paragraph> paragraphs;
  for (const std::string& member : package.names()) {
    if (member != "content.xml" && member != "styles.xml") continue;
    const std::string xml = package.read(member);
    pugi::xml_document& doc = parts[member];
    const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_full);
    if (!parsed) {
      if (warnings)
        warnings->push_back(name + ": " + member + ": " + parsed.description() + "; kept as it is");
      parts.erase(member);
      continue;
    }
    collect_paragraphs(doc, paragraphs);
  }
  std::vector<Segment> segments;
  for (const Paragraph& p : paragraphs) segments.push_back(p.segment);
  const std::vector<SegmentTranslation> translations = translate(segments);
  const auto identity = [](std::string_view text) { return std::string(text); };
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    rebuild(paragraphs[i],
            project_markup(segments[i], translations[i].text, translations[i].links, identity));
  }
  std::map<std::string, std::string> replaced;
  for (auto& [member, doc] : parts) {
    std::ostringstream out;
    doc.save(out, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
    replaced[member] = out.str();
  }
  return package.write(replaced);
}

}  // namespace documents
