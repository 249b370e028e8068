// What an office package says about itself and its language: the title, subject and description of its
// metadata member (docProps/core.xml, ODF's meta.xml) translated as a reader sees them in the file's
// properties, its dc:language and the language the runs declare for spelling (DOCX w:lang, PPTX a:rPr
// lang) set to the target language, so the translation is not checked as the source language.
#pragma once

#include <pugixml.hpp>
#include <string>
#include <vector>

#include "documents/segment.h"

namespace documents {

// The metadata elements translated; each is one segment of plain text.
struct MetadataField {
  pugi::xml_node node;
  Segment segment;
};

// The fields of a parsed metadata member with text in them.
std::vector<MetadataField> metadata_fields(const pugi::xml_document& doc);

// Each field's text replaced by its translation (plain text: pugixml escapes it when the member is written)
// and dc:language set to `language` (unchanged when empty).
void set_metadata(std::vector<MetadataField>& fields, const std::vector<std::string>& translations,
                  pugi::xml_document& doc, const std::string& language);

// Sets to `language` the run languages of a translated part: every attribute `attribute` of the elements
// named in `elements` ("w:lang" w:val; "a:rPr", "a:endParaRPr", "a:defRPr" lang). Nothing when empty.
void set_run_languages(pugi::xml_document& doc, const std::vector<std::string>& elements,
                       const char* attribute, const std::string& language);

}  // namespace documents
