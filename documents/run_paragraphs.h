// Paragraphs made of formatted runs, as DOCX (w:p, w:r) and PPTX (a:p, a:r) spell them: each paragraph one
// segment across its runs, each run's formatting carried to the target words, anything else in the
// paragraph (a field, a drawing, a reference) kept whole where the alignment puts it.
#pragma once

#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "documents/office_package.h"

namespace documents {

// The element names of one format's runs.
struct RunDialect {
  std::string paragraph;                // "w:p"
  std::string paragraph_props;          // "w:pPr": copied first into the rebuilt paragraph
  std::string paragraph_end_props;      // "a:endParaRPr": copied last; "" for none
  std::string run, run_props, text;     // "w:r", "w:rPr", "w:t"
  std::vector<std::string> run_parts;   // what else a plain run may hold ("w:tab"); others keep it whole
  std::vector<std::string> spacing;     // parts that read as a space between words ("w:br")
  std::vector<std::string> containers;  // inline elements around runs ("w:hyperlink")
  bool preserve_space = false;          // text elements carry xml:space="preserve"
  // The elements and attribute that declare a run's language ("w:lang" w:val), set to the target's.
  std::vector<std::string> language_elements;
  const char* language_attribute = "";
};

// The non-blank paragraphs under `root`; a paragraph nested in another's run (a text box) comes first.
void collect_run_paragraphs(const pugi::xml_node& root, const RunDialect& dialect,
                            std::vector<OfficeParagraph>& out);

// The paragraph rebuilt from its projected translation, in its place.
void rebuild_run_paragraph(OfficeParagraph& p, const std::string& projected, const RunDialect& dialect);

// translate_office_package over the run paragraphs of the members `is_translated` names, in a package
// that must hold `main_member`.
std::string translate_run_package(std::string_view bytes, const std::string& name,
                                  std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                  const std::string& main_member,
                                  bool (*is_translated)(const std::string& member), const RunDialect& dialect,
                                  uint64_t max_inflated, const std::string& language);

}  // namespace documents
