#include "documents/pptx.h"

#include "documents/run_paragraphs.h"

namespace documents {

namespace {

bool is_pptx_member_translated(const std::string& member) {
  const auto part = [&](const char* prefix) {
    return member.rfind(prefix, 0) == 0 && member.size() > 4 && member.substr(member.size() - 4) == ".xml";
  };
  return part("ppt/slides/slide") || part("ppt/notesSlides/notesSlide");
}

const RunDialect& pptx_dialect() {
  static const RunDialect dialect = {"a:p",
                                     "a:pPr",
                                     "a:endParaRPr",
                                     "a:r",
                                     "a:rPr",
                                     "a:t",
                                     {},
                                     {"a:br"},
                                     {},
                                     false,
                                     {"a:rPr", "a:endParaRPr", "a:defRPr"},
                                     "lang"};
  return dialect;
}

}  // namespace

std::string translate_pptx(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const SegmentTranslator& translate,
                           uint64_t max_inflated, const std::string& language) {
  return translate_run_package(bytes, name, warnings, translate, "ppt/presentation.xml",
                               is_pptx_member_translated, pptx_dialect(), max_inflated, language);
}

}  // namespace documents
