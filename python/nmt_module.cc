// The Python module `nmt`: nmt::Translator with CTranslate2's method names and result shapes
// (docs/library.md); the GIL is released while a call translates.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "convert.h"
#include "nmt/nmt.h"

namespace py = pybind11;
using nmt_python::options_of;
using nmt_python::texts_of;

namespace {

std::vector<nmt_python::ScoringResult> score_batch(const nmt::Translator& translator, const py::list& source,
                                                   const py::list& target, const py::kwargs& kwargs) {
  bool source_tokens = false, target_tokens = false;
  const std::vector<std::string> sources = texts_of(source, &source_tokens);
  const std::vector<std::string> targets = texts_of(target, &target_tokens);
  const nmt::Options options = options_of(kwargs);
  std::vector<nmt::Score> scores;
  {
    py::gil_scoped_release release;
    scores = translator.score(sources, targets, options);
  }
  std::vector<nmt_python::ScoringResult> out;
  for (const nmt::Score& s : scores) out.push_back({s.tokens, s.log_probs, s.log_prob, s.normalized});
  return out;
}

std::vector<nmt_python::TranslationResult> translate_batch(const nmt::Translator& translator,
                                                           const py::list& source,
                                                           const py::object& target_prefix,
                                                           const py::kwargs& kwargs) {
  bool tokens = false;
  const std::vector<std::string> lines = texts_of(source, &tokens);
  std::vector<std::string> prefixes;
  if (!target_prefix.is_none()) {
    py::list given(target_prefix);
    py::list filled;
    for (const py::handle& p : given)
      filled.append(p.is_none() ? py::str("") : py::reinterpret_borrow<py::object>(p));
    bool prefix_tokens = false;
    prefixes = texts_of(filled, &prefix_tokens);
  }
  const nmt::Options options = options_of(kwargs);
  const bool return_scores = kwargs.contains("return_scores") && py::bool_(kwargs["return_scores"]);
  std::vector<nmt::Translation> translations;
  {
    py::gil_scoped_release release;
    translations = translator.translate(lines, options, prefixes);
  }
  std::vector<nmt_python::TranslationResult> out;
  for (const nmt::Translation& t : translations)
    out.push_back(nmt_python::result_of(t, tokens, return_scores));
  return out;
}

py::object translate_document(const nmt::Translator& translator, const py::object& data,
                              const std::string& format, const py::kwargs& kwargs) {
  const bool text = py::isinstance<py::str>(data);
  const std::string bytes = text ? data.cast<std::string>() : std::string(data.cast<py::bytes>());
  const nmt::Options options = options_of(kwargs);
  std::string out;
  {
    py::gil_scoped_release release;
    out = translator.translate_document(bytes, format, options);
  }
  if (text) return py::str(out);
  return py::bytes(out);
}

py::dict info(const nmt::Translator& translator) {
  const nmt::ModelInfo i = translator.info();
  py::dict d;
  d["model_dir"] = i.model_dir;
  d["source_lang"] = i.source_lang;
  d["target_lang"] = i.target_lang;
  d["language_tags"] = i.language_tags;
  d["source_vocab_size"] = i.source_vocab_size;
  d["target_vocab_size"] = i.target_vocab_size;
  d["d_model"] = i.d_model;
  d["encoder_layers"] = i.encoder_layers;
  d["decoder_layers"] = i.decoder_layers;
  d["beam_size"] = i.beam_size;
  d["length_penalty"] = i.length_penalty;
  d["threads"] = i.threads;
  return d;
}

// CTranslate2's constructor arguments that mean something here: the device (only "cpu") and its thread
// counts; compute_type and the rest are accepted and the model's own weights used.
std::unique_ptr<nmt::Translator> make_translator(const std::string& model, int threads,
                                                 const std::string& device, int intra_threads,
                                                 const py::kwargs&) {
  if (device != "cpu" && device != "auto") throw py::value_error("device: nmt runs on the CPU ('cpu')");
  const int count = threads > 0 ? threads : intra_threads;
  py::gil_scoped_release release;
  return std::make_unique<nmt::Translator>(model, count);
}

}  // namespace

PYBIND11_MODULE(nmt, m) {
  m.doc() =
      "Neural machine translation on the CPU: nmt's library with CTranslate2's Python names "
      "(docs/library.md).";
  static py::exception<nmt::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nmt::Error& e) {
      py::object instance = py::handle(error.ptr())(e.what());
      instance.attr("code") = nmt::error_code_name(e.code());
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });
  nmt_python::register_results(m);
  py::class_<nmt::Translator>(m, "Translator",
                              "A model loaded once. Its methods may be called from several threads at once; "
                              "each call uses up to `threads` threads, with the GIL released.")
      .def(py::init(&make_translator), py::arg("model"), py::arg("threads") = 0, py::kw_only(),
           py::arg("device") = "cpu", py::arg("intra_threads") = 0,
           "model: a model directory or an installed model's name; threads 0: the machine's cores. "
           "device, intra_threads and other CTranslate2 arguments are accepted (device must be 'cpu').")
      .def("translate_batch", &translate_batch, py::arg("source"), py::arg("target_prefix") = py::none(),
           "Translates a list of str (or of token lists). Keywords (None: the model's default): beam_size, "
           "num_hypotheses, length_penalty, max_decoding_length, max_length_a, max_length_b, "
           "repetition_penalty, no_repeat_ngram_size, sampling_topk, sampling_topp, sampling_temperature, "
           "seed, return_scores, return_alignment, word_scores, max_batch_size, batch_type, target_lang, "
           "source_lang, split_sentences, max_sentence_tokens, min_confidence, on_low_confidence, shortlist, "
           "glossary (a glossary file), terms ({source: target} or ['SOURCE=TARGET']). "
           "Returns one TranslationResult per input.")
      .def(
          "translate_file",
          [](const nmt::Translator& t, const std::string& source_path, const std::string& output_path,
             const std::string& format, const py::kwargs& kwargs) {
            const nmt::Options options = options_of(kwargs);
            py::gil_scoped_release release;
            return t.translate_file(source_path, output_path, options, format);
          },
          py::arg("source_path"), py::arg("output_path"), py::kw_only(), py::arg("format") = "auto",
          "Translates a file into output_path (written whole, then renamed): text line by line, or a "
          "document "
          "by its extension (format='auto') or the format named. Returns the number of lines (0 for a "
          "document).")
      .def(
          "translate_document", &translate_document, py::arg("data"), py::arg("format"),
          "Translates a document (bytes or str) of a format (html, xml, markdown, srt, vtt, docx, odt, pptx, "
          "epub, text), markup kept; returns the same type.")
      .def("score_batch", &score_batch, py::arg("source"), py::arg("target"),
           "Forced decoding: each target's token log-probabilities given its source. Returns ScoringResults.")
      .def_property_readonly("threads", &nmt::Translator::threads, "Threads a call uses at most.")
      .def("info", &info, "The model: languages, vocabularies, layers, decoding defaults.");
}
