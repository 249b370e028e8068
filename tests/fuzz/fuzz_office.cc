// libFuzzer target: the zip-package readers (DOCX, ODT, PPTX, EPUB) on arbitrary bytes. Deflated XML mutates
// badly, so the input is mostly the main member's XML, zipped here behind the members its reader needs; the
// first byte picks the reader, and one selector hands the raw bytes over as the package itself (the zip
// reader and the member budget). A core::Error is the documented answer to a bad package; anything else —
// a crash, a sanitizer report, another exception — is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "documents/docx.h"
#include "documents/epub.h"
#include "documents/html_reader.h"
#include "documents/odt.h"
#include "documents/pptx.h"
#include "documents/xml_reader.h"
#include "tests/unit/document_test_support.h"

namespace {

// Small enough that a member inflating past it is caught here, as --max-memory would catch it. The
// readers set the declared languages to "de", as a translation into German does.
constexpr uint64_t kFuzzMaxInflated = uint64_t{32} << 20;

// Each segment reversed word for word, the words linked crosswise: markup has to move.
std::vector<documents::SegmentTranslation> reversed(std::vector<documents::Segment>& segments) {
  std::vector<documents::SegmentTranslation> out;
  for (documents::Segment& segment : segments) {
    documents::protect_spans(segment);
    documents::SegmentTranslation t = test::identity(segment);
    const int n = static_cast<int>(t.links.size());
    for (documents::WordLink& link : t.links) link.source = n - 1 - link.source;
    out.push_back(std::move(t));
  }
  return out;
}

std::string render_member(documents::EpubPart part, const std::string& bytes) {
  if (part == documents::EpubPart::kXhtml) {
    documents::Document d = documents::read_html(bytes, documents::HtmlPass::kText, "f", nullptr);
    return test::render_identity(d, documents::escape_xhtml_text);
  }
  documents::Document d = documents::read_xml(bytes, "f");
  return test::render_identity(d, documents::escape_xml_text);
}

const char kContainer[] =
    "<?xml version=\"1.0\"?><container xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
    "<rootfiles><rootfile full-path=\"OPS/book.opf\"/></rootfiles></container>";
const char kOpf[] =
    "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\"><metadata "
    "xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>A dog</dc:title></metadata><manifest>"
    "<item id=\"c\" href=\"ch1.xhtml\" media-type=\"application/xhtml+xml\"/></manifest></package>";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string xml(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string> warnings;
  // NMT_FUZZ_READER=N holds the reader at N whatever the first byte, for a run per reader.
  static const char* const forced = std::getenv("NMT_FUZZ_READER");
  try {
    switch ((forced ? std::atoi(forced) : data[0]) % 6) {
      case 0:
        documents::translate_docx(test::zip_of({{"word/document.xml", xml}}), "f", &warnings, reversed,
                                  kFuzzMaxInflated, "de");
        break;
      case 1:
        documents::translate_odt(
            test::zip_of({{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", xml}}),
            "f", &warnings, reversed, kFuzzMaxInflated, "de");
        break;
      case 2:
        documents::translate_pptx(
            test::zip_of({{"ppt/presentation.xml", "<p:presentation/>"}, {"ppt/slides/slide1.xml", xml}}),
            "f", &warnings, reversed, kFuzzMaxInflated, "de");
        break;
      case 3:  // the chapter
        documents::translate_epub(
            test::zip_of(
                {{"META-INF/container.xml", kContainer}, {"OPS/book.opf", kOpf}, {"OPS/ch1.xhtml", xml}}),
            "f", &warnings,
            [](documents::EpubPart part, const std::string&, const std::string& bytes) {
              return render_member(part, bytes);
            },
            kFuzzMaxInflated);
        break;
      case 4:  // the package document
        documents::translate_epub(
            test::zip_of({{"META-INF/container.xml", kContainer},
                          {"OPS/book.opf", xml},
                          {"OPS/ch1.xhtml", "<html><body><p>A dog.</p></body></html>"}}),
            "f", &warnings,
            [](documents::EpubPart part, const std::string&, const std::string& bytes) {
              return render_member(part, bytes);
            },
            kFuzzMaxInflated);
        break;
      default:  // the bytes are the package
        documents::translate_docx(xml, "f", &warnings, reversed, kFuzzMaxInflated, "de");
        documents::translate_odt(xml, "f", &warnings, reversed, kFuzzMaxInflated, "de");
    }
  } catch (const core::Error&) {
    // the documented answer to a package that is no document (MalformedXml and TooDeep are core::Errors)
  }
  return 0;
}
