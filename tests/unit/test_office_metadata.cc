// An office package's title and description translated, its declared languages set to the target's.
#include <catch2/catch.hpp>
#include <cctype>
#include <string>
#include <vector>

#include "document_test_support.h"
#include "documents/docx.h"
#include "documents/odt.h"
#include "documents/pptx.h"
#include "documents/zip_package.h"

namespace {

std::vector<documents::SegmentTranslation> upper(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (documents::Segment& s : segments) {
    documents::protect_spans(s);
    documents::SegmentTranslation t = test::identity(s);
    for (char& c : t.text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.push_back(t);
  }
  return out;
}

const char kCore[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cp:coreProperties xmlns:cp=\"cp\" "
    "xmlns:dc=\"dc\"><dc:title>A dog &amp; a cat</dc:title><dc:subject>Dogs</dc:subject><dc:creator>Ann "
    "Lee</dc:creator><dc:language>en-US</dc:language></cp:coreProperties>";

std::string member(const std::string& package, const std::string& name) {
  return documents::ZipPackage(package, "out").read(name);
}

}  // namespace

TEST_CASE("docx: the title and subject translated, w:lang and dc:language the target's", "[documents]") {
  const std::string source = test::zip_of(
      {{"word/document.xml",
        "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:rPr><w:lang w:val=\"en-US\" w:eastAsia=\"ja-JP\"/>"
        "</w:rPr><w:t>A dog runs.</w:t></w:r></w:p></w:body></w:document>"},
       {"docProps/core.xml", kCore}});
  const std::string out = documents::translate_docx(source, "x.docx", nullptr, upper, 1 << 20, "de");
  const std::string core = member(out, "docProps/core.xml");
  CHECK(core.rfind("<?xml version=\"1.0\"", 0) == 0);
  CHECK(core.find("<dc:title>A DOG &amp; A CAT</dc:title><dc:subject>DOGS</dc:subject>") !=
        std::string::npos);
  CHECK(core.find("<dc:creator>Ann Lee</dc:creator>") !=
        std::string::npos);  // a name is no text to translate
  CHECK(core.find("<dc:language>de</dc:language>") != std::string::npos);
  const std::string body = member(out, "word/document.xml");
  CHECK(body.find("<w:lang w:val=\"de\" w:eastAsia=\"ja-JP\"/>") != std::string::npos);
  CHECK(body.find("A DOG RUNS.") != std::string::npos);
  // No language given (a caller that does not know it): the declarations stay.
  const std::string kept = documents::translate_docx(source, "x.docx", nullptr, upper);
  CHECK(member(kept, "docProps/core.xml").find("<dc:language>en-US</dc:language>") != std::string::npos);
}

TEST_CASE("pptx and odt: run languages and the meta title", "[documents]") {
  const std::string slides = test::zip_of({{"ppt/presentation.xml", "<p:presentation/>"},
                                           {"ppt/slides/slide1.xml",
                                            "<p:sld xmlns:a=\"a\" xmlns:p=\"p\"><a:p><a:r><a:rPr "
                                            "lang=\"en-US\" dirty=\"0\"/><a:t>A dog.</a:t></a:r>"
                                            "<a:endParaRPr lang=\"en-US\"/></a:p></p:sld>"}});
  const std::string slide = member(documents::translate_pptx(slides, "x.pptx", nullptr, upper, 1 << 20, "de"),
                                   "ppt/slides/slide1.xml");
  CHECK(slide.find("<a:rPr lang=\"de\" dirty=\"0\"/>") != std::string::npos);
  CHECK(slide.find("<a:endParaRPr lang=\"de\"/>") != std::string::npos);

  const std::string odt = test::zip_of(
      {{"mimetype", "application/vnd.oasis.opendocument.text"},
       {"content.xml",
        "<office:document-content xmlns:office=\"o\" xmlns:text=\"t\"><office:body><office:text><text:p>A "
        "dog.</text:p></office:text></office:body></office:document-content>"},
       {"meta.xml",
        "<office:document-meta xmlns:office=\"o\" xmlns:dc=\"dc\"><office:meta><dc:title>A park</dc:title>"
        "</office:meta></office:document-meta>"}});
  const std::string meta =
      member(documents::translate_odt(odt, "x.odt", nullptr, upper, 1 << 20, "de"), "meta.xml");
  CHECK(meta.find("<dc:title>A PARK</dc:title>") != std::string::npos);
}
