// Subtitles translated a window of cues at a time, and the page's declared language retargeted.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "document_test_support.h"
#include "documents/lang_attributes.h"
#include "documents/subtitles.h"

namespace {

std::string cues(int n, bool sentence_ends) {
  std::string srt;
  for (int i = 1; i <= n; ++i) {
    srt += std::to_string(i) + "\n00:00:01,000 --> 00:00:02,000\nA dog runs on line " + std::to_string(i) +
           (sentence_ends ? ".\n\n" : "\n\n");
  }
  return srt;
}

struct Recorded {
  std::vector<std::string> pieces;
  std::vector<size_t> segments_per_call;
};

Recorded translate_in_windows(const std::string& srt) {
  Recorded r;
  const documents::SegmentTranslator identity = [&r](std::vector<documents::Segment>& segments) {
    r.segments_per_call.push_back(segments.size());
    std::vector<documents::SegmentTranslation> out;
    for (const documents::Segment& s : segments) out.push_back(test::identity(s));
    return out;
  };
  documents::write_translated_subtitles(srt, "f.srt", nullptr, identity, false,
                                        [&r](std::string_view piece) { r.pieces.emplace_back(piece); });
  return r;
}

}  // namespace

TEST_CASE("subtitles: a long file is translated and written a window of cues at a time", "[documents]") {
  const std::string srt = cues(3500, true);
  const Recorded r = translate_in_windows(srt);
  std::string joined;
  for (const std::string& piece : r.pieces) joined += piece;
  CHECK(joined == srt);  // an identity translation gives the file back, whatever the windows
  REQUIRE(r.segments_per_call.size() == 4);
  for (size_t n : r.segments_per_call) CHECK(n <= 1000);
  CHECK(r.pieces.size() == 4);
  for (const std::string& piece : r.pieces) CHECK(piece.size() < srt.size() / 3);
}

TEST_CASE("subtitles: a window ends at a sentence's end, or past its hard bound", "[documents]") {
  // No cue ends a sentence: sentences of 8 cues, a window cut only at 4000 cues.
  const Recorded open = translate_in_windows(cues(4500, false));
  REQUIRE(open.segments_per_call.size() == 2);
  CHECK(open.segments_per_call[0] == 500);  // 4000 cues in sentences of 8
  std::string joined;
  for (const std::string& piece : open.pieces) joined += piece;
  CHECK(joined == cues(4500, false));
}

TEST_CASE("lang: the root's lang and xml:lang become the target language", "[documents]") {
  using documents::retarget_root_language;
  CHECK(retarget_root_language("<!DOCTYPE html>\n<!-- x --><html lang=\"en\"><p lang=\"en\">A</p>", "de") ==
        "<!DOCTYPE html>\n<!-- x --><html lang=\"de\"><p lang=\"en\">A</p>");
  CHECK(retarget_root_language("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
                               "xml:lang='en-GB' lang=en>",
                               "de") ==
        "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xml:lang='de' lang=de>");
  CHECK(retarget_root_language("<HTML LANG = \"en\" data-x=\"lang=en\">", "fr") ==
        "<HTML LANG = \"fr\" data-x=\"lang=en\">");
  // Nothing to change: no language given, another tag first, no lang, a tag that never ends.
  CHECK(retarget_root_language("<html lang=\"en\">", "") == "<html lang=\"en\">");
  CHECK(retarget_root_language("<p lang=\"en\"><html lang=\"en\">", "de") ==
        "<p lang=\"en\"><html lang=\"en\">");
  CHECK(retarget_root_language("<html><body>", "de") == "<html><body>");
  CHECK(retarget_root_language("<html lang=\"en", "de") == "<html lang=\"en");
  CHECK(retarget_root_language("<htmlx lang=\"en\">", "de") == "<htmlx lang=\"en\">");
}
