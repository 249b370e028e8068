#include "documents/docx.h"

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

bool is_member_translated(const std::string& member) {
  if (member == "word/document.xml" || member == "word/footnotes.xml" || member == "word/endnotes.xml")
    return true;
  const auto part = [&](const char* prefix) {
    return member.rfind(prefix, 0) == 0 && member.size() > 4 && member.substr(member.size() - 4) == ".xml";
  };
  return part("word/header") || part("word/footer");
}

// A run is plain when it holds only formatting, text, tabs and breaks; any other run (a field, a drawing,
// a footnote reference) is kept whole.
bool is_plain_run(const pugi::xml_node& run) {
  for (const pugi::xml_node& child : run.children()) {
    const std::string name = child.name();
    if (name != "w:rPr" && name != "w:t" && name != "w:tab" && name != "w:br" && name != "w:cr" &&
        name != "w:noBreakHyphen" && name != "w:softHyphen")
      return false;
  }
  return true;
}

struct Paragraph {
  pugi::xml_node node;
  std::vector<pugi::xml_node> nodes;  // what the markers' indices name
  Segment segment;
};

void read_children(Paragraph& p, const pugi::xml_node& parent) {
  for (pugi::xml_node child : parent.children()) {
    const std::string name = child.name();
    if (name == "w:pPr") continue;
    const size_t index = p.nodes.size();
    p.nodes.push_back(child);
    if (name == "w:r" && is_plain_run(child)) {
      const size_t element = p.segment.open_element(marker('R', index));
      for (pugi::xml_node part : child.children()) {
        const std::string part_name = part.name();
        if (part_name == "w:t") {
          p.segment.text += part.text().get();
        } else if (part_name != "w:rPr") {
          p.nodes.push_back(part);
          p.segment.insert(marker('T', p.nodes.size() - 1));
          if (part_name == "w:tab" || part_name == "w:br" || part_name == "w:cr") {
            if (!p.segment.text.empty() && p.segment.text.back() != ' ') p.segment.text += ' ';
          }
        }
      }
      p.segment.close_element(element, marker('r', index));
    } else if (name == "w:hyperlink" || name == "w:smartTag") {
      const size_t element = p.segment.open_element(marker('H', index));
      read_children(p, child);
      p.segment.close_element(element, marker('h', index));
    } else {
      p.segment.insert(marker('I', index));
    }
  }
}

void collect_paragraphs(const pugi::xml_node& node, std::vector<Paragraph>& out) {
  for (pugi::xml_node child : node.children()) {
    if (std::string(child.name()) == "w:p") {
      Paragraph p;
      p.node = child;
      read_children(p, child);
      std::string& text = p.segment.text;
      bool blank = text.find_first_not_of(" \t") == std::string::npos;
      for (char& c : text) {
        if (c == '\t' || c == '\n') c = ' ';
      }
      if (!blank) out.push_back(std::move(p));
    } else {
      collect_paragraphs(child, out);
    }
  }
}

void add_text(pugi::xml_node run, const std::string& text) {
  pugi::xml_node t = run.append_child("w:t");
  t.append_attribute("xml:space") = "preserve";
  t.text().set(text.c_str());
}

// The paragraph rebuilt from its projected translation, beside the original (whose nodes it copies) and
// then in its place: each run's text in a clone of that run's formatting.
void rebuild(Paragraph& p, const std::string& projected) {
  pugi::xml_node fresh = p.node.parent().insert_child_after(p.node.name(), p.node);
  for (pugi::xml_attribute a : p.node.attributes()) fresh.append_attribute(a.name()) = a.value();
  if (pugi::xml_node props = p.node.child("w:pPr")) fresh.append_copy(props);
  pugi::xml_node container = fresh;
  std::vector<pugi::xml_node> containers;
  pugi::xml_node run;          // the run text goes into, or null
  pugi::xml_node closed;       // the run that ended last
  std::string pending_space;   // spaces between runs, not written yet
  pugi::xml_node last_source;  // the source run of the last run written
  for (const pugi::xml_node& n : p.nodes) {
    if (std::string(n.name()) == "w:r") {
      last_source = n;
      break;
    }
  }
  const auto start_run = [&](const pugi::xml_node& source) {
    run = container.append_child("w:r");
    for (pugi::xml_attribute a : source.attributes()) run.append_attribute(a.name()) = a.value();
    if (pugi::xml_node props = source.child("w:rPr")) run.append_copy(props);
    last_source = source;
  };
  for (size_t i = 0; i < projected.size();) {
    if (projected[i] == kMark) {
      const size_t end = projected.find(kEnd, i);
      const char kind = projected[i + 1];
      const pugi::xml_node source = p.nodes.at(std::stoul(projected.substr(i + 2, end - i - 2)));
      i = end + 1;
      if (kind == 'R') {
        start_run(source);
      } else if (kind == 'H') {
        pugi::xml_node link = container.append_child(source.name());
        for (pugi::xml_attribute a : source.attributes()) link.append_attribute(a.name()) = a.value();
        containers.push_back(container);
        container = link;
        run = pugi::xml_node();
      } else if (kind == 'h') {
        if (!containers.empty()) {
          container = containers.back();
          containers.pop_back();
        }
        run = pugi::xml_node();
      } else if (kind == 'T') {
        if (!run) start_run(source.parent());
        run.append_copy(source);
      } else if (kind == 'I') {
        container.append_copy(source);
        run = pugi::xml_node();
      } else {  // 'r': the run ends
        closed = run;
        run = pugi::xml_node();
      }
      continue;
    }
    const size_t end = std::min(projected.find(kMark, i), projected.size());
    std::string text = projected.substr(i, end - i);
    i = end;
    if (!run && text.find_first_not_of(' ') == std::string::npos) {
      pending_space += text;  // a space between runs goes to the next run, or the last at the end
      continue;
    }
    if (!run) {
      if (!last_source) continue;  // no run to take formatting from: a paragraph of fields only
      start_run(last_source);
    }
    add_text(run, pending_space + text);
    pending_space.clear();
  }
  if (!pending_space.empty() && closed) add_text(closed, pending_space);
  p.node.parent().remove_child(p.node);
}

}  // namespace

std::string translate_docx(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const SegmentTranslator& translate) {
  ZipPackage package{std::string(bytes), name};
  std::map<std::string, pugi::xml_document> parts;
  std::vector<std::pair<std::string, Paragraph>> paragraphs;
  for (const std::string& member : package.names()) {
    if (!is_member_translated(member)) continue;
    const std::string xml = package.read(member);
    pugi::xml_document& doc = parts[member];
    const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_full);
    if (!parsed) {
      if (warnings)
        warnings->push_back(name + ": " + member + ": " + parsed.description() + "; kept as it is");
      parts.erase(member);
      continue;
    }
    std::vector<Paragraph> found;
    collect_paragraphs(doc, found);
    for (Paragraph& p : found) paragraphs.emplace_back(member, std::move(p));
  }
  std::vector<Segment> segments;
  for (const auto& [member, p] : paragraphs) segments.push_back(p.segment);
  const std::vector<SegmentTranslation> translations = translate(segments);
  const auto identity = [](std::string_view text) { return std::string(text); };
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    rebuild(paragraphs[i].second,
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
