// What the office formats (DOCX, PPTX, ODT) share: the markers a projected paragraph carries in place of
// its XML nodes, and the walk over a zip package that translates the paragraphs of some members and
// copies every other member unchanged.
#pragma once

#include <functional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "documents/segment.h"
#include "documents/subtitles.h"

namespace documents {

// Markers in a projected paragraph: kMark, a kind letter, a node index, kEnd. The model never writes them.
constexpr char kMark = '\x01';
constexpr char kEnd = '\x02';

std::string marker(char kind, size_t index);

// One paragraph of an office part: its node, the nodes its markers name (by index) and its segment.
struct OfficeParagraph {
  pugi::xml_node node;
  std::vector<pugi::xml_node> nodes;
  Segment segment;
};

// Walks a projected paragraph: text between markers to `on_text`, each marker's kind letter and node to
// `on_marker`.
void walk_projected(const std::string& projected, const OfficeParagraph& p,
                    const std::function<void(char kind, const pugi::xml_node& node)>& on_marker,
                    const std::function<void(const std::string& text)>& on_text);

// Tabs, line ends and the markers' characters in the segment's text read as spaces; true when any other
// text is left.
bool tidy_paragraph_text(Segment& segment);

struct OfficeFormat {
  // The member every package of the format has ("word/document.xml"): a zip without it is another file.
  std::string main_member;
  std::function<bool(const std::string& member)> is_translated;
  std::function<void(const pugi::xml_node& root, std::vector<OfficeParagraph>& out)> collect;
  // Puts the paragraph's translation (its projected text) in place of the paragraph.
  std::function<void(OfficeParagraph& p, const std::string& projected)> rebuild;
  // The member holding the title and description (office_metadata.h): "docProps/core.xml", "meta.xml".
  std::string metadata_member;
  // The elements and attribute of a translated member that declare the runs' language ("w:lang", "w:val").
  std::vector<std::string> language_elements;
  const char* language_attribute = "";
};

// The package with the paragraphs of its translated members and its metadata translated, the languages
// they declare set to `language` (the target's; "" keeps them); a member that does not parse is kept as it
// is, with a warning naming `name` and the member. Throws core::Error when the package lacks the format's
// main member. The members read inflate to `max_inflated` bytes at most (documents/zip_package.h).
std::string translate_office_package(std::string_view bytes, const std::string& name,
                                     std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                     const OfficeFormat& format, uint64_t max_inflated,
                                     const std::string& language = "");

}  // namespace documents
