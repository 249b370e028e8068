#include "documents/docx.h"

#include "documents/run_paragraphs.h"

namespace documents {

namespace {

bool is_docx_member_translated(const std::string& member) {
  if (member == "word/document.xml" || member == "word/footnotes.xml" || member == "word/endnotes.xml" ||
      member == "word/comments.xml")
    return true;
  const auto part = [&](const char* prefix) {
    return member.rfind(prefix, 0) == 0 && member.size() > 4 && member.substr(member.size() - 4) == ".xml";
  };
  return part("word/header") || part("word/footer");
}

const RunDialect& docx_dialect() {
  static const RunDialect dialect = {
      "w:p",
      "w:pPr",
      "",
      "w:r",
      "w:rPr",
      "w:t",
      {"w:tab", "w:br", "w:cr", "w:noBreakHyphen", "w:softHyphen", "w:lastRenderedPageBreak", "w:footnoteRef",
       "w:endnoteRef", "w:annotationRef"},
      {"w:tab", "w:br", "w:cr"},
      {"w:hyperlink", "w:smartTag", "w:sdt", "w:sdtContent", "w:ins", "w:moveTo", "w:moveFrom", "w:customXml",
       "w:dir", "w:bdo"},
      true,
      {"w:lang"},
      "w:val"};
  return dialect;
}

}  // namespace

std::string translate_docx(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const SegmentTranslator& translate,
                           uint64_t max_inflated, const std::string& language) {
  return translate_run_package(bytes, name, warnings, translate, "word/document.xml",
                               is_docx_member_translated, docx_dialect(), max_inflated, language);
}

}  // namespace documents
