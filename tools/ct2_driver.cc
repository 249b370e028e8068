// The bench's CTranslate2 engine (tools/bench_ct2.py compiles it when /opt/ctranslate2 exists; never part
// of nmt's build): translates pre-tokenized lines through ctranslate2::Translator.
//
//   ct2_driver MODEL_DIR COMPUTE_TYPE THREADS BEAM MAX_DECODING_LENGTH LENGTH_PENALTY NO_REPEAT_NGRAM MODE
//     < pieces.txt > pieces.out
//
// Input: one sentence a line, SentencePiece pieces separated by spaces (the source EOS included).
// Output: the best hypothesis's pieces a line, in input order. MODE "batch": one translate_batch over
// all lines, max_batch_size 32; MODE "latency": one translate_batch per line (one request = one
// sentence, after one untimed warm-up request); "scores": as batch, but BEAM hypotheses a line, best
// first, each as its score (CTranslate2's, length-normalised), a tab and its pieces, tab-separated; "force":
// each input line is SOURCE<TAB>TARGET pieces and its output line the log-probabilities CTranslate2 gives
// TARGET's tokens and the EOS after them (score_batch; tools/ct2_divergence.py scores both engines' outputs).
// Stderr's last line is JSON: load_s, translate_s, sentences, target_tokens, and in latency mode each
// request's seconds.
#include <ctranslate2/translator.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> split_pieces(const std::string& text) {
  std::istringstream words(text);
  std::vector<std::string> pieces;
  for (std::string piece; words >> piece;) pieces.push_back(piece);
  return pieces;
}

std::vector<std::vector<std::string>> read_pieces(std::istream& in) {
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(split_pieces(line));
  return lines;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string line;
  for (size_t i = 0; i < pieces.size(); ++i) line += (i ? " " : "") + pieces[i];
  return line;
}

void write_hypothesis(const ctranslate2::TranslationResult& result, size_t& target_tokens) {
  target_tokens += result.hypotheses.at(0).size();
  std::cout << joined(result.hypotheses.at(0)) << '\n';
}

void write_scored_hypotheses(const ctranslate2::TranslationResult& result) {
  for (size_t h = 0; h < result.hypotheses.size(); ++h)
    std::cout << (h ? "\t" : "") << result.scores.at(h) << '\t' << joined(result.hypotheses[h]);
  std::cout << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::cerr << "usage: ct2_driver MODEL_DIR COMPUTE_TYPE THREADS BEAM MAX_DECODING_LENGTH LENGTH_PENALTY "
                 "NO_REPEAT_NGRAM batch|latency|scores|force < pieces.txt\n";
    return 2;
  }
  const std::string model_dir = argv[1], compute_type = argv[2], mode = argv[8];
  std::vector<std::vector<std::string>> source, target;
  if (mode == "force") {
    for (std::string line; std::getline(std::cin, line);) {
      const size_t tab = line.find('\t');
      source.push_back(split_pieces(line.substr(0, tab)));
      target.push_back(split_pieces(tab == std::string::npos ? "" : line.substr(tab + 1)));
    }
  } else {
    source = read_pieces(std::cin);
  }

  const auto load_start = std::chrono::steady_clock::now();
  ctranslate2::models::ModelLoader loader(model_dir);
  loader.device = ctranslate2::Device::CPU;
  loader.compute_type = ctranslate2::str_to_compute_type(compute_type);
  ctranslate2::ReplicaPoolConfig pool;
  pool.num_threads_per_replica = std::strtoul(argv[3], nullptr, 10);
  ctranslate2::Translator translator(loader, pool);
  const double load_s = seconds_since(load_start);

  ctranslate2::TranslationOptions options;
  options.beam_size = std::strtoul(argv[4], nullptr, 10);
  options.max_decoding_length = std::strtoul(argv[5], nullptr, 10);
  options.min_decoding_length = 0;
  options.length_penalty = std::strtof(argv[6], nullptr);
  options.no_repeat_ngram_size = std::strtoul(argv[7], nullptr, 10);

  size_t target_tokens = 0;
  std::vector<double> request_s;
  const auto start = std::chrono::steady_clock::now();
  double translate_s = 0;
  std::cout.precision(9);
  if (mode == "batch") {
    const auto results = translator.translate_batch(source, options, /*max_batch_size=*/32);
    translate_s = seconds_since(start);
    for (const auto& result : results) write_hypothesis(result, target_tokens);
  } else if (mode == "scores") {
    options.return_scores = true;
    options.num_hypotheses = options.beam_size;  // changes what is returned, not the search
    const auto results = translator.translate_batch(source, options, /*max_batch_size=*/32);
    translate_s = seconds_since(start);
    for (const auto& result : results) write_scored_hypotheses(result);
  } else if (mode == "force") {
    const auto results = translator.score_batch(source, target);
    translate_s = seconds_since(start);
    for (const auto& result : results) {
      for (size_t i = 0; i < result.tokens_score.size(); ++i)
        std::cout << (i ? " " : "") << result.tokens_score[i];
      std::cout << '\n';
    }
  } else if (mode == "latency") {
    if (!source.empty()) translator.translate_batch({source[0]}, options);
    for (const auto& sentence : source) {
      const auto request_start = std::chrono::steady_clock::now();
      const auto results = translator.translate_batch({sentence}, options);
      request_s.push_back(seconds_since(request_start));
      translate_s += request_s.back();
      write_hypothesis(results.at(0), target_tokens);
    }
  } else {
    std::cerr << "ct2_driver: mode must be batch, latency, scores or force, got " << mode << '\n';
    return 2;
  }
  std::cout.flush();

  std::ostringstream json;
  json << "{\"load_s\": " << load_s << ", \"translate_s\": " << translate_s
       << ", \"sentences\": " << source.size() << ", \"target_tokens\": " << target_tokens
       << ", \"threads\": " << pool.num_threads_per_replica << ", \"compute_type\": \"" << compute_type
       << "\", \"request_s\": [";
  for (size_t i = 0; i < request_s.size(); ++i) json << (i ? ", " : "") << request_s[i];
  json << "]}";
  std::cerr << json.str() << std::endl;
  return 0;
}
