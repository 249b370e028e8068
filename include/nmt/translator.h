// nmt as a library: a model loaded once, lines, documents and files translated, targets scored.
//
//   nmt::Translator translator("/usr/share/nmt/general-en-de", 2);
//   nmt::Options options;
//   options.beam_size = 4;
//   std::vector<nmt::Translation> out = translator.translate({"A dog runs."}, options);
//   std::cout << out[0].hypotheses[0].text << "\n";
//
// Threads: a call uses up to `threads` threads (the calling thread and threads - 1 it starts for the call).
// The count belongs to the Translator, not the process: two Translators, or two threads calling one
// Translator, each use their own count at once, so their threads add up. Every method is const and may be
// called from several threads at once on one Translator (they share its weights). On CPUs without AVX2,
// where OpenBLAS does the large products, OpenBLAS's own thread count is process-wide.
//
// Errors: every method throws nmt::Error (nmt/error.h) and nothing else, but std::bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nmt/error.h"
#include "nmt/export.h"
#include "nmt/options.h"
#include "nmt/results.h"

namespace nmt {

class NMT_API Translator {
 public:
  // `model`: a model directory (model.json, weights, tokenizer), or the name of a model installed with
  // nmt ("general-en-de", "multi30k-en-de" under PREFIX/share/nmt). threads 0: the machine's cores.
  explicit Translator(const std::string& model, int threads = 0);
  ~Translator();
  Translator(Translator&&) noexcept;
  Translator& operator=(Translator&&) noexcept;
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // One Translation per line, in order, as `nmt translate` gives them: each line split into sentences,
  // translated, rejoined; blank lines come back blank. `target_prefixes`: empty, or one per line, each ""
  // or target text the line's translation must start with.
  std::vector<Translation> translate(const std::vector<std::string>& lines, const Options& options = {},
                                     const std::vector<std::string>& target_prefixes = {}) const;

  // A formatted document ("html", "xml", "markdown", "srt", "vtt", "docx", "odt", "pptx", "epub":
  // docs/formats.md) translated with its markup kept; the bytes of the translated document. "text"
  // translates line by line.
  std::string translate_document(const std::string& bytes, const std::string& format,
                                 const Options& options = {}) const;

  // The file at `input` translated into `output` (written whole, then renamed over it). format "auto":
  // by the input's extension (text for other names), as `nmt translate -i` does. Returns the lines (or
  // segments, for a document: 0) translated.
  size_t translate_file(const std::string& input, const std::string& output, const Options& options = {},
                        const std::string& format = "auto") const;

  // Forced decoding: each target's tokens scored given its source (same index), one sentence each (no
  // splitting), as CTranslate2's score_batch and marian-scorer do. Every token's log-probability is the
  // model's full softmax (the model's banned ids excluded, as the search does), without the search's loop
  // guards or a shortlist. Options: batch_size, target_lang and length_penalty (Score::normalized) are used.
  std::vector<Score> score(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                           const Options& options = {}) const;

  ModelInfo info() const;
  int threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nmt
