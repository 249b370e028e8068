#include "documents/office_package.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/error.h"
#include "documents/dtd_entities.h"
#include "documents/nesting.h"
#include "documents/office_metadata.h"
#include "documents/projection.h"
#include "documents/zip_package.h"

namespace documents {

std::string marker(char kind, size_t index) {
  return std::string(1, kMark) + kind + std::to_string(index) + kEnd;
}

void walk_projected(const std::string& projected, const OfficeParagraph& p,
                    const std::function<void(char kind, const pugi::xml_node& node)>& on_marker,
                    const std::function<void(const std::string& text)>& on_text) {
  for (size_t i = 0; i < projected.size();) {
    if (projected[i] == kMark) {
      // kMark, a kind letter, digits, kEnd: anything else is no marker (tidy_paragraph_text keeps the
      // two characters out of the text, so none should reach here) and is dropped.
      const size_t end = projected.find(kEnd, i);
      size_t index = 0;
      bool valid = end != std::string::npos && end > i + 2 && end - i - 2 <= 9;
      for (size_t k = i + 2; valid && k < end; ++k) {
        valid = projected[k] >= '0' && projected[k] <= '9';
        index = index * 10 + static_cast<size_t>(projected[k] - '0');
      }
      if (!valid || index >= p.nodes.size()) {
        ++i;
        continue;
      }
      const char kind = projected[i + 1];
      i = end + 1;
      on_marker(kind, p.nodes[index]);
      continue;
    }
    const size_t end = std::min(projected.find(kMark, i), projected.size());
    on_text(projected.substr(i, end - i));
    i = end;
  }
}

bool tidy_paragraph_text(Segment& segment) {
  for (char& c : segment.text) {
    // The markers' two characters (which XML 1.0 does not allow anyway) would read as a marker.
    if (c == '\t' || c == '\n' || c == '\r' || c == kMark || c == kEnd) c = ' ';
  }
  return segment.text.find_first_not_of(' ') != std::string::npos;
}

std::string translate_office_package(std::string_view bytes, const std::string& name,
                                     std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                     const OfficeFormat& format, uint64_t max_inflated,
                                     const std::string& language) {
  ZipPackage package{std::string(bytes), name, max_inflated};
  const std::vector<std::string>& members = package.names();
  if (std::find(members.begin(), members.end(), format.main_member) == members.end()) {
    throw core::Error(name + ": not a document of this format: the zip package has no " + format.main_member);
  }
  std::map<std::string, pugi::xml_document> parts;
  std::map<std::string, std::vector<std::string>> entities;  // each member's DTD entity references, hidden
  std::vector<OfficeParagraph> paragraphs;
  for (const std::string& member : package.names()) {
    if (!format.is_translated(member)) continue;
    const std::string xml = hide_dtd_entities(package.read(member), &entities[member]);
    pugi::xml_document& doc = parts[member];
    const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_full);
    if (!parsed) {
      if (warnings)
        warnings->push_back(name + ": " + member + ": " + parsed.description() + "; kept as it is");
      parts.erase(member);
      continue;
    }
    // The paragraph readers recurse once per level: a deeper member is kept as it is.
    if (const pugi::xml_node deep = first_too_deep(doc)) {
      const size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(deep.offset_debug(), 0));
      if (warnings) {
        warnings->push_back(
            too_deep_message(name + ":" + member + ":" + std::to_string(line_at(xml, offset))) +
            "; kept as it is");
      }
      parts.erase(member);
      continue;
    }
    format.collect(doc, paragraphs);
  }
  std::map<std::string, std::string> replaced;
  pugi::xml_document metadata;
  std::vector<MetadataField> fields;
  const bool has_metadata =
      std::find(members.begin(), members.end(), format.metadata_member) != members.end();
  if (has_metadata) {
    const std::string xml = package.read(format.metadata_member);
    if (metadata.load_buffer(xml.data(), xml.size(), pugi::parse_full)) {
      fields = metadata_fields(metadata);
    } else if (warnings) {
      warnings->push_back(name + ": " + format.metadata_member + ": does not parse; kept as it is");
    }
  }
  std::vector<Segment> segments;
  for (const OfficeParagraph& p : paragraphs) segments.push_back(p.segment);
  for (const MetadataField& f : fields) segments.push_back(f.segment);
  const std::vector<SegmentTranslation> translations = translate(segments);
  const auto identity = [](std::string_view text) { return std::string(text); };
  if (metadata.first_child()) {
    std::vector<std::string> titles;
    for (size_t i = paragraphs.size(); i < segments.size(); ++i)
      titles.push_back(project_markup(segments[i], translations[i].text, translations[i].links, identity));
    set_metadata(fields, titles, metadata, language);
    std::ostringstream out;
    metadata.save(out, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
    replaced[format.metadata_member] = out.str();
  }
  // In collection order: a text box's paragraphs come before the paragraph whose drawing holds them, so
  // that paragraph copies them translated.
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    format.rebuild(paragraphs[i],
                   project_markup(segments[i], translations[i].text, translations[i].links, identity));
  }
  for (auto& [member, doc] : parts) {
    set_run_languages(doc, format.language_elements, format.language_attribute, language);
    std::ostringstream out;
    doc.save(out, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
    replaced[member] = restore_dtd_entities(out.str(), entities[member]);
  }
  return package.write(replaced);
}

}  // namespace documents
