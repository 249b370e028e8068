#include "convert.h"

#include <pybind11/stl.h>

#include <set>

namespace nmt_python {

namespace {

constexpr const char* kPieceSpace = "\xe2\x96\x81";  // SentencePiece's "▁", a space before a word

std::string join_tokens(const py::handle& tokens) {
  std::string text;
  for (const py::handle& token : py::reinterpret_borrow<py::iterable>(tokens))
    text += token.cast<std::string>();
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, kPieceSpace) == 0) {
      if (!out.empty()) out += ' ';
      i += 3;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// A glossary's terms as the library takes them, "SOURCE=TARGET" lines: from a dict (source -> target, a
// str whose forms are separated by "|" or a list of forms) or a list of "SOURCE=TARGET" strings.
std::string terms_of(const py::handle& value) {
  const auto line = [](const std::string& term) {
    if (term.find_first_of("\r\n") != std::string::npos)
      throw py::value_error("terms: a term holds a line break: '" + term + "'");
    return term + "\n";
  };
  std::string lines;
  if (py::isinstance<py::dict>(value)) {
    for (const auto& [source_item, target_item] : py::reinterpret_borrow<py::dict>(value)) {
      const std::string source = source_item.cast<std::string>();
      if (source.find('=') != std::string::npos)
        throw py::value_error("terms: a source term holds '=': '" + source + "'");
      std::string targets;
      if (py::isinstance<py::str>(target_item)) {
        targets = target_item.cast<std::string>();
      } else {
        for (const std::string& form : target_item.cast<std::vector<std::string>>())
          targets += (targets.empty() ? "" : "|") + form;
      }
      lines += line(source + "=" + targets);
    }
    return lines;
  }
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value))
    throw py::type_error("terms: a dict {source: target} or a list of 'SOURCE=TARGET' strings, not one str");
  for (const std::string& term : value.cast<std::vector<std::string>>()) lines += line(term);
  return lines;
}

template <class T>
void take(const py::kwargs& kwargs, const char* name, std::optional<T>& field, std::set<std::string>& used) {
  used.insert(name);
  if (!kwargs.contains(name)) return;
  const py::object value = kwargs[name];
  if (!value.is_none()) field = value.cast<T>();
}

}  // namespace

std::vector<std::string> texts_of(const py::list& batch, bool* tokens) {
  std::vector<std::string> texts;
  *tokens = false;
  for (const py::handle& item : batch) {
    if (py::isinstance<py::str>(item)) {
      texts.push_back(item.cast<std::string>());
    } else if (py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item)) {
      *tokens = true;
      texts.push_back(join_tokens(item));
    } else {
      throw py::type_error("each item must be a str or a list of tokens");
    }
  }
  return texts;
}

nmt::Options options_of(const py::kwargs& kwargs) {
  nmt::Options o;
  std::set<std::string> used;
  take(kwargs, "beam_size", o.beam_size, used);
  take(kwargs, "length_penalty", o.length_penalty, used);
  take(kwargs, "max_decoding_length", o.max_length, used);
  take(kwargs, "max_length_a", o.max_length_a, used);
  take(kwargs, "max_length_b", o.max_length_b, used);
  take(kwargs, "num_hypotheses", o.n_best, used);
  take(kwargs, "sampling_topk", o.sampling_top_k, used);
  take(kwargs, "sampling_topp", o.sampling_top_p, used);
  take(kwargs, "sampling_temperature", o.sampling_temperature, used);
  take(kwargs, "seed", o.seed, used);
  take(kwargs, "repetition_penalty", o.repetition_penalty, used);
  take(kwargs, "no_repeat_ngram_size", o.no_repeat_ngram_size, used);
  take(kwargs, "word_scores", o.word_scores, used);
  take(kwargs, "return_alignment", o.alignment, used);
  take(kwargs, "alignment_layer", o.alignment_layer, used);
  take(kwargs, "target_lang", o.target_lang, used);
  take(kwargs, "source_lang", o.source_lang, used);
  take(kwargs, "split_sentences", o.split_sentences, used);
  take(kwargs, "max_sentence_tokens", o.max_sentence_tokens, used);
  take(kwargs, "min_confidence", o.min_confidence, used);
  take(kwargs, "on_low_confidence", o.on_low_confidence, used);
  take(kwargs, "shortlist", o.shortlist, used);
  if (kwargs.contains("glossary") && !kwargs["glossary"].is_none())
    o.glossary = py::module_::import("os").attr("fspath")(kwargs["glossary"]).cast<std::string>();
  used.insert("glossary");
  if (kwargs.contains("terms") && !kwargs["terms"].is_none()) o.terms = terms_of(kwargs["terms"]);
  used.insert("terms");
  // CTranslate2's batching: max_batch_size examples, or tokens with batch_type="tokens".
  std::optional<int> max_batch_size;
  std::optional<std::string> batch_type;
  take(kwargs, "max_batch_size", max_batch_size, used);
  take(kwargs, "batch_type", batch_type, used);
  if (batch_type && *batch_type != "examples" && *batch_type != "tokens")
    throw py::value_error("batch_type must be 'examples' or 'tokens'");
  if (max_batch_size && *max_batch_size > 0) {
    if (batch_type && *batch_type == "tokens") {
      o.max_batch_tokens = *max_batch_size;
    } else {
      o.batch_size = *max_batch_size;
    }
  }
  // Accepted as CTranslate2 takes them, with what they mean here.
  for (const char* name : {"return_scores", "return_alternatives", "return_attention", "target_prefix"})
    used.insert(name);
  if (kwargs.contains("return_alternatives") && py::bool_(kwargs["return_alternatives"]))
    throw py::value_error("return_alternatives: not supported (num_hypotheses gives the n best)");
  if (kwargs.contains("return_attention") && py::bool_(kwargs["return_attention"]))
    throw py::value_error("return_attention: not supported (`nmt attention` writes attention)");
  for (const auto& item : kwargs) {
    const std::string name = item.first.cast<std::string>();
    if (!used.count(name)) throw py::type_error("unexpected keyword argument '" + name + "'");
  }
  return o;
}

TranslationResult result_of(const nmt::Translation& translation, bool tokens, bool return_scores) {
  TranslationResult r;
  r.tokens = tokens;
  r.detected_language = translation.detected_language;
  for (const nmt::Hypothesis& h : translation.hypotheses) {
    if (tokens) {
      r.hypotheses.append(py::cast(h.tokens));
    } else {
      r.hypotheses.append(py::str(h.text));
    }
    if (return_scores) r.scores.append(h.score);
    r.raw_scores.append(h.raw_score);
    r.confidences.append(h.confidence);
    r.flags.append(py::cast(h.flags));
    py::list links;
    for (const nmt::WordLink& link : h.alignment) links.append(py::make_tuple(link.source, link.target));
    r.alignments.append(links);
    r.word_scores.append(py::cast(h.word_scores));
  }
  return r;
}

void register_results(py::module_& m) {
  py::class_<TranslationResult>(m, "TranslationResult",
                                "One input's translation, shaped as CTranslate2's TranslationResult.")
      .def_readonly("hypotheses", &TranslationResult::hypotheses,
                    "The n best, best first: str for str input, lists of tokens for token input.")
      .def_readonly("scores", &TranslationResult::scores,
                    "Per hypothesis, log-prob / length^length_penalty (empty unless return_scores=True).")
      .def_readonly("raw_scores", &TranslationResult::raw_scores, "Per hypothesis, the sum of the log-probs.")
      .def_readonly("confidences", &TranslationResult::confidences, "Per hypothesis, a confidence in [0, 1].")
      .def_readonly("flags", &TranslationResult::flags, "Per hypothesis, codes of what went wrong.")
      .def_readonly("alignments", &TranslationResult::alignments,
                    "Per hypothesis, (source word, target word) pairs (with return_alignment=True).")
      .def_readonly("word_scores", &TranslationResult::word_scores,
                    "Per hypothesis, one log-prob per word (with word_scores=True).")
      .def_readonly("detected_language", &TranslationResult::detected_language,
                    "The input's language as identified; '' when it cannot be told.")
      .def("__len__", [](const TranslationResult& r) { return r.hypotheses.size(); })
      .def(
          "__getitem__",
          [](const TranslationResult& r, py::ssize_t i) {
            const py::ssize_t n = static_cast<py::ssize_t>(r.hypotheses.size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) throw py::index_error("hypothesis index out of range");
            py::dict d;
            d[r.tokens ? "tokens" : "text"] = r.hypotheses[i];
            if (r.scores.size() > 0) d["score"] = r.scores[i];
            return d;
          },
          "CTranslate2's result[i]: {'tokens' or 'text': ..., 'score': ...}.")
      .def("__repr__", [](const TranslationResult& r) {
        return "TranslationResult(hypotheses=" + py::repr(r.hypotheses).cast<std::string>() +
               ", scores=" + py::repr(r.scores).cast<std::string>() + ")";
      });
  py::class_<ScoringResult>(m, "ScoringResult",
                            "A target scored by forced decoding (CTranslate2's ScoringResult).")
      .def_readonly("tokens", &ScoringResult::tokens, "The target's tokens, then '</s>'.")
      .def_readonly("log_probs", &ScoringResult::log_probs, "One log-probability per token.")
      .def_readonly("score", &ScoringResult::score, "The sum of log_probs.")
      .def_readonly("normalized_score", &ScoringResult::normalized_score,
                    "score / len(tokens)^length_penalty.")
      .def("__repr__", [](const ScoringResult& r) {
        return "ScoringResult(tokens=" + py::repr(py::cast(r.tokens)).cast<std::string>() +
               ", score=" + std::to_string(r.score) + ")";
      });
}

}  // namespace nmt_python
