// Template body of cli::translate_lines (included by cli/io/translate_stream.h).
#pragma once

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/io/io_error.h"
#include "cli/io/long_line_chunks.h"
#include "front/jsonl_input.h"
#include "front/jsonl_output.h"

namespace cli {

// Lines read ahead per window: enough to sort into full batches of similar lengths and to keep every thread
// busy until the window's end (the threads wait for each other there), few enough to bound memory (also
// capped at 16 MB of text): 32 batches, so the wait at the window's end is a small share of it. Input that
// arrives slowly is not held back (LineReader stops at an idle pipe).
inline size_t window_lines(const pipeline::TranslateOptions& o) {
  return static_cast<size_t>(o.batch_size) * 32;
}

// " ||| 0-0 1-2": hypothesis k's alignment, Marian's suffix; "" without --alignment.
inline std::string alignment_suffix(const pipeline::Translation& t, size_t k) {
  return t.alignments.empty() ? "" : " ||| " + pipeline::format_alignment(t.alignments[k]);
}

inline std::string format_score(float score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", score);
  return buf;
}

// " ||| WordScores= -0.12345 -1.00000": hypothesis k's word scores as Marian prints them (5 decimals);
// "" without --word-scores.
inline std::string word_scores_suffix(const pipeline::Translation& t, size_t k) {
  if (t.word_scores.empty()) return "";
  std::string field = " ||| WordScores=";
  char buf[32];
  for (float score : t.word_scores[k]) {
    std::snprintf(buf, sizeof buf, " %.5f", score);
    field += buf;
  }
  return field;
}

// What follows a hypothesis's text: its alignment, then its word scores, as Marian orders them.
inline std::string marian_suffix(const pipeline::Translation& t, size_t k) {
  return alignment_suffix(t, k) + word_scores_suffix(t, k);
}

inline bool has_flag(const pipeline::Translation& t, size_t k, const std::string& flag) {
  return k < t.flags.size() && std::find(t.flags[k].begin(), t.flags[k].end(), flag) != t.flags[k].end();
}

// "wrong-language (input de, output de)": the flag with the languages identified.
inline std::string wrong_language_note(const pipeline::Translation& t, size_t k) {
  std::string languages;
  if (!t.detected_language.empty()) languages = "input " + t.detected_language;
  if (k < t.output_languages.size() && !t.output_languages[k].empty())
    languages += (languages.empty() ? "output " : ", output ") + t.output_languages[k];
  return languages.empty() ? "wrong-language" : "wrong-language (" + languages + ")";
}

// "flagged loop, numbers (confidence 0.31)": hypothesis k's flags for --flag-warnings, "" when it has
// none but length-limit (which has a warning of its own).
inline std::string flag_warning(const pipeline::Translation& t, size_t k) {
  std::string codes;
  for (const std::string& flag : t.flags[k]) {
    if (flag == "length-limit") continue;
    codes += (codes.empty() ? "" : ", ") + (flag == "wrong-language" ? wrong_language_note(t, k) : flag);
  }
  if (codes.empty()) return "";
  char confidence[32];
  std::snprintf(confidence, sizeof confidence, "%.2f", t.confidences[k]);
  return "flagged " + codes + " (confidence " + confidence + ")";
}

// "PATH:LINE" for messages about an input line; LINE counts from 1 over the whole input.
inline std::string input_position(const LineReader& reader, uint64_t line_number) {
  const std::string name = reader.name() == "<stdin>" ? "stdin" : printable_path(reader.name());
  return name + ":" + std::to_string(line_number + 1);
}

template <class Sink>
uint64_t translate_lines(const pipeline::Translator& translator, LineReader& reader, Sink& sink,
                         const TranslateCommandOptions& options, TranslateStats* stats,
                         QualityReport* report) {
  const pipeline::TranslateOptions& o = options.translate;
  const bool jsonl_in = options.input_format == TextFormat::kJsonl;
  const bool jsonl_out = options.output_format == TextFormat::kJsonl;
  // A line over the window's cap streams through in pieces; the n-best, scores, alignment and JSON formats
  // need it whole, and sampling keys its streams by whole lines.
  if (o.n_best == 1 && !options.scores && !o.alignment && !o.word_scores && !jsonl_in && !jsonl_out &&
      !o.sampling.enabled) {
    reader.set_long_lines(std::min(reader.max_line_bytes(), kWindowBytes),
                          long_line_cutter(o.source_lang, o.split_sentences));
  }
  uint64_t line_number = 0, malformed = 0;
  for (;;) {
    std::vector<Line> window = reader.next_batch(window_lines(o), kWindowBytes);
    if (window.empty()) break;
    std::vector<uint64_t> line_numbers;  // of each window entry; the pieces of a line share one
    for (const Line& l : window) line_numbers.push_back(l.continues ? line_number : line_number++);
    std::vector<std::string> texts;
    texts.reserve(window.size());
    std::vector<pipeline::LineControls> controls;    // jsonl input: each line's own
    std::vector<std::string> errors(window.size());  // jsonl input: why a line is malformed
    for (size_t i = 0; i < window.size(); ++i) {
      if (!jsonl_in) {
        texts.push_back(window[i].text);
        continue;
      }
      front::JsonlRequest request = front::parse_jsonl_request(window[i].text, translator, o);
      if (!request.error.empty()) {
        sink.warn(input_position(reader, line_numbers[i]) + ": " + request.error);
        ++malformed;
      }
      texts.push_back(std::move(request.text));  // a malformed line translates as a blank one
      controls.push_back(std::move(request.controls));
      errors[i] = std::move(request.error);
    }
    pipeline::TranslateOptions window_options = o;
    // Sampling streams follow the line's place in the whole input, not in the window.
    window_options.first_line = line_numbers.front();
    sink.start_window(window_options);
    std::vector<pipeline::TranslateWarning> warnings;
    const std::vector<pipeline::Translation> out =
        translator.translate(texts, window_options, &warnings, jsonl_in ? &controls : nullptr);
    for (const pipeline::TranslateWarning& w : warnings) {
      sink.warn(input_position(reader, line_numbers[w.line]) + ": " + w.message);
    }
    for (size_t i = 0; i < window.size(); ++i) {
      const pipeline::Translation& t = out[i];
      const LineEnding ending = window[i].ending;
      if (errors[i].empty() && has_flag(t, 0, "length-limit")) {
        sink.warn(input_position(reader, line_numbers[i]) +
                  ": the translation stopped at the length limit (--max-length-a/-b, --max-length), not at "
                  "an end of sentence: it may be cut short or looping");
      }
      if (errors[i].empty() && report)
        report->add(input_position(reader, line_numbers[i]), t, window[i].continues);
      if (errors[i].empty() && options.front.flag_warnings) {
        if (const std::string w = flag_warning(t, 0); !w.empty())
          sink.warn(input_position(reader, line_numbers[i]) + ": " + w);
      }
      if (!errors[i].empty()) {
        sink.write_line(jsonl_out ? front::error_json(errors[i]) : "", ending);
      } else if (jsonl_out) {
        sink.write_line(front::translation_json(t, translator.tokenizer(), o.n_best > 1), ending);
      } else if (o.n_best > 1) {
        // Marian's n-best format: LINE ||| text [||| alignment] [||| WordScores= ...] ||| F0= raw score |||
        // normalized score (docs/search.md); every hypothesis line ends like the input line, the last
        // exactly so.
        for (size_t k = 0; k < t.texts.size(); ++k) {
          const std::string line = std::to_string(line_numbers[i]) + " ||| " + t.texts[k] +
                                   marian_suffix(t, k) + " ||| F0= " + format_score(t.raw_scores[k]) +
                                   " ||| " + format_score(t.scores[k]);
          sink.write_line(line,
                          k + 1 < t.texts.size() && ending == LineEnding::kNone ? LineEnding::kLf : ending);
        }
      } else if (options.scores) {
        sink.write_line(format_score(t.scores[0]) + "\t" + t.texts[0] + marian_suffix(t, 0), ending);
      } else {
        sink.write_line(
            t.texts[0] + std::string(piece_separator(window[i], t.texts[0], translator.joins_unspaced(o))) +
                marian_suffix(t, 0),
            ending);
      }
    }
    sink.flush();
    if (stats) {
      for (const Line& l : window) stats->lines += l.continues ? 0 : 1;
      for (const pipeline::Translation& t : out) stats->target_tokens += t.ids[0].size();
    }
  }
  return malformed;
}

}  // namespace cli
