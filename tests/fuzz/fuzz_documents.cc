// libFuzzer target: arbitrary bytes through the document readers (HTML text and attributes, Markdown with
// its writer, subtitles, XML) and the markup projection, with a translation and alignment made from the input
// too. The first byte picks the reader (or NMT_FUZZ_READER). Anything but normal return — a crash, a
// sanitizer report, an exception — is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "documents/html_reader.h"
#include "documents/markdown_writer.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/subtitles.h"
#include "documents/xml_reader.h"

namespace {

// A "translation": the segment's words reversed, each linked to its source word, and one link at random.
documents::SegmentTranslation scrambled(const documents::Segment& segment, uint8_t salt) {
  std::vector<std::string> words;
  std::string word;
  for (char c : segment.text + " ") {
    if (c == ' ') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  documents::SegmentTranslation t;
  const int n = static_cast<int>(words.size());
  for (int i = n; i-- > 0;) {
    t.text += (t.text.empty() ? "" : " ") + words[i];
    t.links.push_back({i, n - 1 - i});
  }
  t.links.push_back({salt % 7 - 1, salt % 5});  // out of range and duplicate links must be harmless
  return t;
}

std::string identity_escape(std::string_view text) { return std::string(text); }

void render(documents::Document& document, uint8_t salt) {
  for (documents::Segment& segment : document.segments) {
    documents::protect_spans(segment);
    const documents::SegmentTranslation t = scrambled(segment, salt);
    documents::project_markup(segment, t.text, t.links, identity_escape);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // NMT_FUZZ_READER=N holds the reader at N whatever the first byte, for a run per reader.
  static const char* const forced = std::getenv("NMT_FUZZ_READER");
  const uint8_t selector = forced ? static_cast<uint8_t>(std::atoi(forced)) : data[0];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string> warnings;
  const auto scramble_all = [selector](std::vector<documents::Segment>& segments) {
    std::vector<documents::SegmentTranslation> out;
    for (documents::Segment& s : segments) {
      documents::protect_spans(s);
      out.push_back(scrambled(s, selector));
    }
    return out;
  };
  switch (selector % 5) {
    case 0: {
      documents::Document d = documents::read_html(text, documents::HtmlPass::kText, "f", &warnings);
      render(d, selector);
      break;
    }
    case 1: {
      documents::Document d = documents::read_html(text, documents::HtmlPass::kAttributes, "f", &warnings);
      render(d, selector);
      break;
    }
    case 2:  // read, projected, escaped and wrapped again
      documents::translate_markdown(text, "f", &warnings, scramble_all);
      break;
    case 4:
      try {
        documents::Document d = documents::read_xml(text, "f");
        render(d, selector);
      } catch (const documents::MalformedXml&) {
        // the documented answer to malformed XML
      }
      break;
    default:
      documents::translate_subtitles(text, "f", &warnings, scramble_all, (selector / 5) % 2 == 1);
  }
  return 0;
}
