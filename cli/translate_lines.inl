// Template body of cli::translate_lines (included by translate_command.h).
#pragma once

#include <cstdio>
#include <iostream>

#include "cli/io_error.h"

namespace cli {

// Lines read ahead per window: enough to sort into full batches of similar lengths and to keep every thread
// busy until the window's end (the threads wait for each other there), few enough to bound memory (also
// capped at 16 MB of text): 32 batches, so the wait at the window's end is a small share of it. Input that
// arrives slowly is not held back (LineReader stops at an idle pipe).
inline size_t window_lines(const models::TranslateOptions& o) {
  return static_cast<size_t>(o.batch_size) * 32;
}

inline std::string format_score(float score) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", score);
  return buf;
}

// "PATH:LINE" for messages about an input line; LINE counts from 1 over the whole input.
inline std::string input_position(const LineReader& reader, uint64_t line_number) {
  const std::string name = reader.name() == "<stdin>" ? "stdin" : printable_path(reader.name());
  return name + ":" + std::to_string(line_number + 1);
}

template <class Sink>
void translate_lines(const models::Translator& translator, LineReader& reader, Sink& sink,
                     const TranslateCommandOptions& options, TranslateStats* stats) {
  const models::TranslateOptions& o = options.translate;
  uint64_t line_number = 0;
  for (;;) {
    std::vector<Line> window = reader.next_batch(window_lines(o), size_t{16} << 20);
    if (window.empty()) break;
    std::vector<std::string> texts;
    texts.reserve(window.size());
    for (const Line& l : window) texts.push_back(l.text);
    std::vector<models::TranslateWarning> warnings;
    const std::vector<models::Translation> out = translator.translate(texts, o, &warnings);
    for (const models::TranslateWarning& w : warnings) {
      sink.warn(input_position(reader, line_number + w.line) + ": " + w.message);
    }
    for (size_t i = 0; i < window.size(); ++i, ++line_number) {
      const models::Translation& t = out[i];
      const LineEnding ending = window[i].ending;
      if (o.n_best > 1) {
        // Marian's n-best format (the third field lists feature scores; ours is the model score, F0); every
        // hypothesis line ends like the input line, the last exactly so.
        for (size_t k = 0; k < t.texts.size(); ++k) {
          const std::string score = format_score(t.scores[k]);
          const std::string line =
              std::to_string(line_number) + " ||| " + t.texts[k] + " ||| F0= " + score + " ||| " + score;
          sink.write_line(line,
                          k + 1 < t.texts.size() && ending == LineEnding::kNone ? LineEnding::kLf : ending);
        }
      } else if (options.scores) {
        sink.write_line(format_score(t.scores[0]) + "\t" + t.texts[0], ending);
      } else {
        sink.write_line(t.texts[0], ending);
      }
    }
    sink.flush();
    if (stats) {
      stats->lines += window.size();
      for (const models::Translation& t : out) stats->target_tokens += t.ids[0].size();
    }
  }
}

}  // namespace cli
