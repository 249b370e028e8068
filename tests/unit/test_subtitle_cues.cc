// Subtitle cues as a subtitler writes them: dialogue lines, SSA/ASS override tags, WebVTT references and
// bidi marks, and blocks whose timing line is malformed.
#include <catch2/catch.hpp>

#include "document_test_support.h"
#include "documents/subtitles.h"

namespace {

// Identity "translation" that records what the model would read.
struct RecordingTranslator {
  std::vector<std::string> seen;
  std::vector<documents::SegmentTranslation> operator()(std::vector<documents::Segment>& segments) {
    std::vector<documents::SegmentTranslation> out;
    for (const documents::Segment& s : segments) {
      seen.push_back(s.text);
      out.push_back(test::identity(s));
    }
    return out;
  }
};

std::string translate(const std::string& file, bool webvtt, RecordingTranslator& model,
                      std::vector<std::string>* warnings = nullptr) {
  return documents::translate_subtitles(file, webvtt ? "t.vtt" : "t.srt", warnings, std::ref(model), webvtt);
}

}  // namespace

TEST_CASE("subtitles: each dialogue line is a sentence of its own on its own line", "[documents]") {
  const std::string srt =
      "1\n00:00:01,000 --> 00:00:02,000\n- Where is the dog?\n- It is in the garden.\n\n"
      "2\n00:00:03,000 --> 00:00:04,000\nWhere?\n-- Here.\n";
  RecordingTranslator model;
  const std::string out = translate(srt, false, model);
  CHECK(out.substr(0, out.find("\n\n")) == srt.substr(0, srt.find("\n\n")));
  // Not a dialogue ("--" is no speaker's dash): one sentence, re-wrapped as any cue is.
  CHECK(model.seen ==
        std::vector<std::string>{"Where is the dog?", "It is in the garden.", "Where? -- Here."});
}

TEST_CASE("subtitles: SSA override tags stay where they stand", "[documents]") {
  const std::string srt = "1\n00:00:01,000 --> 00:00:02,000\n{\\an8}A dog {\\i1}runs{\\i0}.\n";
  RecordingTranslator model;
  // An insertion inside the text follows the word before it.
  CHECK(translate(srt, false, model) == "1\n00:00:01,000 --> 00:00:02,000\n{\\an8}A dog{\\i1} runs{\\i0}.\n");
  CHECK(model.seen == std::vector<std::string>{"A dog runs."});
}

TEST_CASE("webvtt: references read as characters and written back as references", "[documents]") {
  const std::string vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nTom &amp; Jerry &lt;3 &lrm;run.\n";
  RecordingTranslator model;
  CHECK(translate(vtt, true, model) ==
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nTom &amp; Jerry &lt;3&lrm; run.\n");
  REQUIRE(model.seen.size() == 1);
  CHECK(model.seen[0] == "Tom & Jerry <3 run.");
}

TEST_CASE("subtitles: a block with a malformed timing line is named in a warning", "[documents]") {
  const std::string vtt =
      "WEBVTT\n\nNOTE a note\n\n00:00:01.000 -> 00:00:02.000\nA typo.\n\n"
      "00:00:03.000 --> 00:00:04.000\nFine.\n";
  RecordingTranslator model;
  std::vector<std::string> warnings;
  CHECK(translate(vtt, true, model, &warnings) == vtt);
  CHECK(warnings ==
        std::vector<std::string>{"t.vtt:5: a block without a timing line (\"-->\") is kept untranslated"});
}

TEST_CASE("webvtt: a timing line right after a cue's text starts the next cue", "[documents]") {
  RecordingTranslator model;
  const std::string file =
      "WEBVTT\n\n00:00.000 --> 00:02.000\nA dog runs.\n00:02.000 --> 00:04.000\nA man sits.\n";
  CHECK(translate(file, true, model) == file);
  CHECK(model.seen == std::vector<std::string>{"A dog runs.", "A man sits."});
}

TEST_CASE("subtitles: a cue after a pause starts a sentence of its own", "[documents]") {
  RecordingTranslator model;
  translate(
      "1\n00:00:00,000 --> 00:00:10,000\nA dog in the park\n\n2\n01:00:10,000 --> 01:00:20,000\n"
      "A man on the beach\n\n3\n01:00:20,100 --> 01:00:22,000\nwith a ball\n",
      false, model);
  CHECK(model.seen.size() == 2);  // the third cue, 100 ms after the second, continues its sentence
  CHECK(model.seen[0].find("A dog in the park") != std::string::npos);
  CHECK(model.seen[0].find("A man") == std::string::npos);
}

TEST_CASE("subtitles: words spread by length leave no cue empty while there are enough", "[documents]") {
  const auto two_words = [](std::vector<documents::Segment>& segments) {
    documents::SegmentTranslation t;
    t.text = "Hund rennt.";
    return std::vector<documents::SegmentTranslation>(segments.size(), t);
  };
  std::vector<std::string> warnings;
  const std::string out = documents::translate_subtitles(
      "1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:02,000 --> 00:00:03,000\nb c d e f g h i j.\n",
      "t.srt", &warnings, two_words, false);
  CHECK(out == "1\n00:00:01,000 --> 00:00:02,000\nHund\n\n2\n00:00:02,000 --> 00:00:03,000\nrennt.\n");
}
