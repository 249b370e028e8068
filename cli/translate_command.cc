#include "cli/translate_command.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/directory_mode.h"
#include "cli/model_path.h"
#include "cli/output_file.h"
#include "core/error.h"
#include "core/gemm.h"
#include "core/threads.h"

namespace cli {

namespace {

// CLI::Range lets NaN through (every comparison with it is false), and -inf would read as "the model's
// default" to the translator.
CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        return std::isfinite(value) ? "" : "must be a finite number, got " + text;
      },
      "FINITE");
}

void print_stats(const TranslateStats& s, std::chrono::duration<double> load,
                 std::chrono::duration<double> run) {
  const core::GemmStats g = core::gemm_stats();
  const nlohmann::json j = {{"load_s", load.count()},
                            {"translate_s", run.count()},
                            {"sentences", s.lines},
                            {"target_tokens", s.target_tokens},
                            {"tokens_per_s", s.target_tokens / std::max(run.count(), 1e-9)},
                            {"gemm_gflop", g.flops / 1e9},
                            {"gemm_s", g.seconds},
                            {"threads", core::num_threads()}};
  std::cerr << j.dump() << "\n";
}

}  // namespace

CLI::App* add_translate_command(CLI::App& app, TranslateCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand("translate", "Translate text: one output line per input line, in order");
  cmd->footer(
      "Examples:\n"
      "  nmt translate < in.txt > out.txt\n"
      "  echo 'A dog runs.' | nmt translate -b 1\n"
      "  nmt translate --input-dir docs/ --output-dir docs.de/ --glob '*.txt'\n"
      "Unset decoding flags take the model's defaults (see `nmt info`).");
  cmd->add_option(
      "-m,--model", o.model_dir,
      "Model directory (default: $NMT_MODEL, else the bundled " + std::string(kDefaultModelName) + " model)");
  cmd->add_option("-i,--input", o.input, "Input file, '-' for stdin")->capture_default_str();
  cmd->add_option("-o,--output", o.output, "Output file, '-' for stdout (written atomically)")
      ->capture_default_str();
  cmd->add_option("-b,--beam-size,--beam", o.translate.beam_size,
                  "Beam width; 1 = greedy (default: the model's)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--length-penalty", o.translate.length_penalty,
                  "Score = log-prob / length^alpha (default: the model's)")
      ->check(finite_number());
  cmd->add_option("--max-length", o.translate.max_length,
                  "Hard cap on generated tokens, EOS included (default: the model's)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-length-a", o.translate.max_length_a,
                  "Generated tokens <= a * source tokens + b: a (default: the model's)")
      ->check(finite_number())
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--max-length-b", o.translate.max_length_b, "... and b (default: the model's)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--batch-size", o.translate.batch_size, "Sentences per batch")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--threads", o.threads, "CPU threads (0 = all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->add_option("--n-best", o.translate.n_best,
                  "Print the N best hypotheses as Marian does: 'LINE ||| text ||| F0= score ||| score'")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--scores", o.scores, "Prefix each translation with its score and a tab");
  cmd->add_flag("--stats", o.stats,
                "At the end, print timings and counts as one JSON line on stderr (for benchmarks)");
  cmd->add_option(
      "--target-lang", o.translate.target_lang,
      "Target language: one of a multilingual model's tags (prepends >>LANG<<), or the model's own");
  cmd->add_option("--source-lang", o.translate.source_lang,
                  "Language of the input for sentence splitting (default: the model's, see `nmt info`)");
  cmd->add_flag(
      "--no-split", [&o](int64_t) { o.translate.split_sentences = false; },
      "Do not split lines into sentences (input already has one sentence per line)");
  cmd->add_option(
         "--max-sentence-tokens", o.translate.max_sentence_tokens,
         "Sentences over this many tokens are cut at clauses, then spaces (default: 200, at most the "
         "model's positions)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--input-dir", o.input_dir, "Translate every text file under this directory (recursively)");
  cmd->add_option("--output-dir", o.output_dir, "... into the same relative paths under this directory");
  cmd->add_option("--glob", o.glob, "Directory mode: only files matching this pattern (e.g. '*.txt')");
  cmd->add_option("--shard", o.shard, "Directory mode: only shard i of n ('i/n', 0-based) of the files")
      ->capture_default_str();
  cmd->add_flag("--overwrite", o.overwrite, "Directory mode: redo files whose output already exists");
  return cmd;
}

int run_translate(const TranslateCommandOptions& options) {
  TranslateCommandOptions o = options;
  if (o.input_dir.empty() != o.output_dir.empty()) {
    throw core::UsageError("--input-dir and --output-dir go together");
  }
  if (!o.input_dir.empty() && (o.input != "-" || o.output != "-")) {
    throw core::UsageError("-i/-o and --input-dir/--output-dir are different modes: use one");
  }
  if (o.input_dir.empty() && (!o.glob.empty() || o.shard != "0/1" || o.overwrite)) {
    throw core::UsageError("--glob, --shard and --overwrite need --input-dir/--output-dir");
  }
  if (o.translate.n_best > 1 && o.scores)
    throw core::UsageError("--n-best already prints scores: drop --scores");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (o.threads > static_cast<int>(4 * cores)) {
    throw core::UsageError("--threads " + std::to_string(o.threads) + " is more than 4x this machine's " +
                           std::to_string(cores) + " cores");
  }
  core::set_num_threads(o.threads == 0 ? static_cast<int>(cores) : o.threads);
  if (o.model_dir.empty()) o.model_dir = default_model_dir();

  // Open the input before loading the model, so a typo fails fast.
  LineReader reader = o.input_dir.empty() ? LineReader::open(o.input) : LineReader::from_string("");
  const auto start = std::chrono::steady_clock::now();
  models::Translator translator(o.model_dir);
  o.translate = translator.resolve(o.translate);  // validate flags against the model before any output
  const auto loaded = std::chrono::steady_clock::now();

  if (!o.input_dir.empty()) return run_directory_mode(translator, o);
  core::set_gemm_profiling(o.stats);
  TranslateStats stats;
  if (o.output == "-") {
    StdoutWriter out;
    translate_lines(translator, reader, out, o, &stats);
    out.flush();
  } else {
    AtomicOutputFile file(o.output);
    FileSink sink{file};
    translate_lines(translator, reader, sink, o, &stats);
    file.commit();
  }
  if (o.stats) print_stats(stats, loaded - start, std::chrono::steady_clock::now() - loaded);
  return 0;
}

}  // namespace cli
