// libnmt through its installed face only (include/nmt): translations as `nmt translate` gives them (the
// caller compares), forced decoding against the beam's own scores, two threads on one Translator, and the
// error codes. Usage: api_check MODEL [INPUT]: prints INPUT's best translations, one per line, then checks;
// a failed check exits 1 naming it.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "nmt/nmt.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::cerr << "api_check: FAILED: " << what << "\n";
  ++failures;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The beam's best hypothesis forced back through the model scores as the beam scored it. The loop guards
// change the beam's softmax (they ban tokens), so both run without them, and without a shortlist.
void check_forced_decoding(const nmt::Translator& translator, const std::vector<std::string>& lines) {
  nmt::Options options;
  options.split_sentences = false;
  options.no_repeat_ngram_size = 0;
  options.shortlist = "off";
  const std::vector<nmt::Translation> translations = translator.translate(lines, options);
  std::vector<std::string> targets;
  for (const nmt::Translation& t : translations) targets.push_back(t.hypotheses.at(0).text);
  const std::vector<nmt::Score> scores = translator.score(lines, targets, options);
  expect(scores.size() == lines.size(), "one score per pair");
  double worst = 0;
  int compared = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    const nmt::Hypothesis& best = translations[i].hypotheses[0];
    std::vector<std::string> forced(scores[i].tokens.begin(), scores[i].tokens.end() - 1);
    if (forced != best.tokens) continue;  // the text re-encodes to other pieces: another path
    expect(scores[i].log_probs.size() == best.tokens.size() + 1, "a log-prob per token and EOS");
    worst = std::max(worst, static_cast<double>(std::fabs(scores[i].log_prob - best.raw_score)));
    ++compared;
  }
  std::fprintf(stderr, "forced decoding: %d of %zu lines compared, largest |forced - beam| = %.2e\n",
               compared, lines.size(), worst);
  expect(compared * 2 >= static_cast<int>(lines.size()), "most hypotheses re-encode to their own pieces");
  expect(worst < 1e-4, "forced decoding agrees with the beam's raw scores to 1e-4");
}

// Two threads translating through one Translator at once get what one thread gets.
void check_concurrent(const nmt::Translator& translator, const std::vector<std::string>& lines,
                      const std::vector<nmt::Translation>& expected) {
  std::vector<nmt::Translation> first, second;
  std::thread other([&] { second = translator.translate(lines); });
  first = translator.translate(lines);
  other.join();
  bool same = first.size() == expected.size() && second.size() == expected.size();
  for (size_t i = 0; same && i < expected.size(); ++i)
    same = first[i].hypotheses[0].text == expected[i].hypotheses[0].text &&
           second[i].hypotheses[0].text == expected[i].hypotheses[0].text &&
           first[i].hypotheses[0].score == expected[i].hypotheses[0].score;
  expect(same, "two threads on one Translator translate as one does");
}

template <class Call>
void expect_error(nmt::ErrorCode code, const std::string& fragment, Call call) {
  try {
    call();
    expect(false, "an nmt::Error containing '" + fragment + "'");
  } catch (const nmt::Error& e) {
    expect(e.code() == code && std::string(e.what()).find(fragment) != std::string::npos,
           std::string("error '") + e.what() + "' (code " + nmt::error_code_name(e.code()) + ") for '" +
               fragment + "'");
  }
}

void check_errors(const nmt::Translator& translator) {
  nmt::Options bad;
  bad.beam_size = 0;
  expect_error(nmt::ErrorCode::kInvalidArgument, "beam_size", [&] { translator.translate({"A dog."}, bad); });
  nmt::Options top_p;
  top_p.sampling_top_p = 2;
  expect_error(nmt::ErrorCode::kInvalidArgument, "sampling_top_p",
               [&] { translator.translate({"A dog."}, top_p); });
  expect_error(nmt::ErrorCode::kModel, "/nonexistent", [] { nmt::Translator("/nonexistent/model"); });
  expect_error(nmt::ErrorCode::kInvalidArgument, "format",
               [&] { translator.translate_document("x", "pdf"); });
  expect_error(nmt::ErrorCode::kFailure, "malformed",
               [&] { translator.translate_document("<a><b></a>", "xml"); });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: api_check MODEL [INPUT]\n";
    return 2;
  }
  const nmt::Translator translator(argv[1], 2);
  const std::vector<std::string> lines =
      argc > 2 ? read_lines(argv[2]) : std::vector<std::string>{"A dog runs in the park.", "", "Two men."};
  const std::vector<nmt::Translation> translations = translator.translate(lines);
  for (const nmt::Translation& t : translations) std::cout << t.hypotheses.at(0).text << "\n";
  check_forced_decoding(translator,
                        {"A dog runs in the park.", "Two men are talking.", "A girl in a red coat.",
                         "The children are laughing.", "A man is cooking dinner."});
  check_concurrent(translator, lines, translations);
  check_errors(translator);
  const std::string html = translator.translate_document("<p>A <b>dog</b> runs.</p>", "html");
  expect(html.find("<b>") != std::string::npos && html.find("<p>") == 0, "an HTML document keeps its markup");
  expect(translator.info().threads == 2, "info() names the threads");
  return failures == 0 ? 0 : 1;
}
