#include "documents/run_paragraphs.h"

#include <algorithm>

namespace documents {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A run is plain when it holds only formatting, text and the dialect's run parts; any other run (a field,
// a drawing, a footnote reference) is kept whole.
bool is_plain_run(const pugi::xml_node& run, const RunDialect& d) {
  for (const pugi::xml_node& child : run.children()) {
    const std::string name = child.name();
    if (name != d.run_props && name != d.text && !listed(d.run_parts, name)) return false;
  }
  return true;
}

// A content control's properties (`w:sdtPr`, `w:sdtEndPr`) open it: copied with the control, not projected.
bool is_container_props(const pugi::xml_node& node) {
  const std::string name = node.name();
  return name == "w:sdtPr" || name == "w:sdtEndPr";
}

void add_space(Segment& segment) {
  if (!segment.text.empty() && segment.text.back() != ' ') segment.text += ' ';
}

void read_children(OfficeParagraph& p, const pugi::xml_node& parent, const RunDialect& d) {
  for (pugi::xml_node child : parent.children()) {
    const std::string name = child.name();
    if (name == d.paragraph_props || name == d.paragraph_end_props || is_container_props(child)) continue;
    const size_t index = p.nodes.size();
    p.nodes.push_back(child);
    if (name == d.run && is_plain_run(child, d)) {
      const size_t element = p.segment.open_element(marker('R', index));
      for (pugi::xml_node part : child.children()) {
        const std::string part_name = part.name();
        if (part_name == d.text) {
          p.segment.text += part.text().get();
        } else if (part_name != d.run_props) {
          p.nodes.push_back(part);
          p.segment.insert(marker('T', p.nodes.size() - 1));
          if (listed(d.spacing, part_name)) add_space(p.segment);
        }
      }
      p.segment.close_element(element, marker('r', index));
    } else if (listed(d.containers, name)) {
      const size_t element = p.segment.open_element(marker('H', index));
      read_children(p, child, d);
      p.segment.close_element(element, marker('h', index));
    } else {
      p.segment.insert(marker('I', index));
      if (listed(d.spacing, name)) add_space(p.segment);
    }
  }
}

// Text joins the run's last text element when it ends with one: a DrawingML run holds a single a:t.
void add_text(pugi::xml_node run, const std::string& text, const RunDialect& d) {
  if (pugi::xml_node last = run.last_child(); last && last.name() == d.text) {
    last.text().set((std::string(last.text().get()) + text).c_str());
    return;
  }
  pugi::xml_node t = run.append_child(d.text.c_str());
  if (d.preserve_space) t.append_attribute("xml:space") = "preserve";
  t.text().set(text.c_str());
}

void copy_attributes(const pugi::xml_node& from, pugi::xml_node to) {
  for (pugi::xml_attribute a : from.attributes()) to.append_attribute(a.name()) = a.value();
}

}  // namespace

void collect_run_paragraphs(const pugi::xml_node& root, const RunDialect& dialect,
                            std::vector<OfficeParagraph>& out) {
  for (pugi::xml_node child : root.children()) {
    if (child.name() != dialect.paragraph) {
      collect_run_paragraphs(child, dialect, out);
      continue;
    }
    collect_run_paragraphs(child, dialect, out);  // text boxes inside its runs
    OfficeParagraph p;
    p.node = child;
    read_children(p, child, dialect);
    if (tidy_paragraph_text(p.segment)) out.push_back(std::move(p));
  }
}

void rebuild_run_paragraph(OfficeParagraph& p, const std::string& projected, const RunDialect& d) {
  pugi::xml_node fresh = p.node.parent().insert_child_after(p.node.name(), p.node);
  copy_attributes(p.node, fresh);
  if (pugi::xml_node props = p.node.child(d.paragraph_props.c_str())) fresh.append_copy(props);
  pugi::xml_node container = fresh;
  std::vector<pugi::xml_node> containers;
  pugi::xml_node run;          // the run text goes into, or null
  pugi::xml_node closed;       // the run that ended last
  std::string pending_space;   // spaces between runs, not written yet
  pugi::xml_node last_source;  // the source run of the last run written
  bool after_break = false;    // a break or tab was written last: it stands for the space that follows
  for (const pugi::xml_node& n : p.nodes) {
    if (n.name() == d.run) {
      last_source = n;
      break;
    }
  }
  const auto start_run = [&](const pugi::xml_node& source) {
    run = container.append_child(d.run.c_str());
    copy_attributes(source, run);
    if (pugi::xml_node props = source.child(d.run_props.c_str())) run.append_copy(props);
    last_source = source;
  };
  const auto on_marker = [&](char kind, const pugi::xml_node& source) {
    if (kind == 'R') {
      start_run(source);
    } else if (kind == 'H') {
      pugi::xml_node link = container.append_child(source.name());
      copy_attributes(source, link);
      for (const pugi::xml_node& child : source.children()) {
        if (is_container_props(child)) link.append_copy(child);
      }
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
      after_break = listed(d.spacing, source.name());
    } else if (kind == 'I') {
      container.append_copy(source);
      run = pugi::xml_node();
      after_break = listed(d.spacing, source.name());
    } else {  // 'r': the run ends
      closed = run;
      run = pugi::xml_node();
    }
  };
  const auto on_text = [&](std::string text) {
    if (after_break) {
      if (text.find_first_not_of(' ') == std::string::npos) return;
      text.erase(0, text.find_first_not_of(' '));
      pending_space.clear();
      after_break = false;
    }
    if (!run && text.find_first_not_of(' ') == std::string::npos) {
      pending_space += text;  // a space between runs goes to the next run, or the last at the end
      return;
    }
    if (!run) {
      if (!last_source) return;  // no run to take formatting from: a paragraph of fields only
      start_run(last_source);
    }
    add_text(run, pending_space + text, d);
    pending_space.clear();
  };
  walk_projected(projected, p, on_marker, on_text);
  if (!pending_space.empty() && closed) add_text(closed, pending_space, d);
  if (!d.paragraph_end_props.empty()) {
    if (pugi::xml_node props = p.node.child(d.paragraph_end_props.c_str())) fresh.append_copy(props);
  }
  p.node.parent().remove_child(p.node);
}

std::string translate_run_package(std::string_view bytes, const std::string& name,
                                  std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                  const std::string& main_member,
                                  bool (*is_translated)(const std::string& member), const RunDialect& dialect,
                                  uint64_t max_inflated, const std::string& language) {
  OfficeFormat format;
  format.metadata_member = "docProps/core.xml";
  format.language_elements = dialect.language_elements;
  format.language_attribute = dialect.language_attribute;
  format.main_member = main_member;
  format.is_translated = is_translated;
  format.collect = [&](const pugi::xml_node& root, std::vector<OfficeParagraph>& out) {
    collect_run_paragraphs(root, dialect, out);
  };
  format.rebuild = [&](OfficeParagraph& p, const std::string& projected) {
    rebuild_run_paragraph(p, projected, dialect);
  };
  return translate_office_package(bytes, name, warnings, translate, format, max_inflated, language);
}

}  // namespace documents
