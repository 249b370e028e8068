#include "cli/commands/translate_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

#include "cli/commands/model_option.h"
#include "cli/commands/option_flags.h"
#include "cli/commands/usage.h"
#include "cli/exit_codes.h"
#include "cli/files/directory_mode.h"
#include "cli/files/shard.h"
#include "cli/io/document_mode.h"
#include "cli/io/output_file.h"
#include "cli/io/output_target.h"
#include "cli/io/translate_stream.h"
#include "cli/memory_limit.h"
#include "core/error.h"
#include "core/gemm.h"
#include "core/threads.h"
#include "front/core_split.h"
#include "front/language_router.h"
#include "front/model_catalog.h"
#include "front/model_path.h"

namespace cli {

namespace {

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

// Refuses '' for a path, which would otherwise read as "not given".
CLI::Validator non_empty() {
  return CLI::Validator([](std::string& text) { return text.empty() ? "must not be empty" : ""; }, "");
}

// Text arguments as input lines: each argument one line (line breaks inside become spaces).
std::string text_arguments(const std::vector<std::string>& texts) {
  std::string lines;
  for (std::string text : texts) {
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    lines += text + "\n";
  }
  return lines;
}

}  // namespace

CLI::App* add_translate_command(CLI::App& app, TranslateCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand("translate", "Translate text: one output line per input line, in order");
  cmd->footer(
      "Examples:\n"
      "  nmt translate < in.txt > out.txt\n"
      "  nmt translate \"A dog runs.\" \"A cat sleeps.\"\n"
      "  echo 'A dog runs.' | nmt translate -b 1\n"
      "  nmt translate --input-dir docs/ --output-dir docs.de/ --glob '*.txt'\n"
      "Unset decoding flags take the model's defaults (see `nmt info`).");
  add_model_option(*cmd, o.model_dir);
  cmd->add_option("-s,--from", o.from,
                  "Source language (de, deu, de-DE): with --to, picks the installed model for the pair "
                  "(`nmt models list`); -m wins")
      ->check(non_empty())
      ->type_name("LANG");
  cmd->add_option("-t,--to", o.to,
                  "Target language: with --from, picks the model for the pair; alone, each line goes to the "
                  "model for its language as detected (a line none translates is copied, flagged unrouted)")
      ->check(non_empty())
      ->type_name("LANG");
  cmd->add_option("--pivot", o.pivot,
                  "With --to and no model for the pair: translate through this language, by a model "
                  "into it and one out of it")
      ->capture_default_str()
      ->check(non_empty())
      ->type_name("LANG");
  cmd->add_flag("--no-pivot", o.no_pivot,
                "With --to: refuse (or, --to alone, copy) what no model translates directly");
  cmd->get_option("--no-pivot")->excludes(cmd->get_option("--pivot"));
  cmd->add_option("text", o.texts,
                  "Text to translate, each argument one line (default: -i or standard input)")
      ->type_name("LINE");
  cmd->add_option_function<std::string>(
         "-i,--input",
         [&o](const std::string& path) {
           o.input = path;
           o.input_given = true;
         },
         "Input file, '-' for stdin (default: -)")
      ->check(non_empty())
      ->type_name("FILE");
  cmd->add_option(
         "-o,--output", o.output,
         "Output file, '-' for stdout. A file is replaced whole when complete (mode kept); a FIFO or "
         "device is written through")
      ->capture_default_str()
      ->check(non_empty())
      ->type_name("FILE");
  add_option_flags(*cmd, o.flags);
  cmd->get_option("--max-batch-tokens")->excludes(cmd->get_option("--batch-size"));
  cmd->get_option("--alignment-layer")->needs(cmd->get_option("--alignment"));
  cmd->add_option(
         "--max-memory", o.max_memory,
         "Memory limit (e.g. 2G): --batch-size is reduced to fit, with a warning (default: a quarter of "
         "physical memory, at most three quarters of a cgroup or ulimit -v limit)")
      ->type_name("SIZE");
  int_in_range(cmd->add_option("--threads", o.threads,
                               "CPU threads (of each replica), 0 = the cores shared among --replicas")
                   ->capture_default_str(),
               0, 256);
  const auto format_option = [cmd](const std::string& name, TextFormat& format, const std::string& help) {
    cmd->add_option_function<std::string>(
           name,
           [&format](const std::string& value) {
             format = value == "jsonl" ? TextFormat::kJsonl : TextFormat::kText;
           },
           help)
        ->check(CLI::IsMember({"text", "jsonl"}).description(""))
        ->type_name("text|jsonl");
  };
  format_option(
      "--input-format", o.input_format,
      "jsonl: one JSON object per line with \"text\" and optional \"prefix\" (the translation starts "
      "with it) and \"beam_size\" (default: text)");
  format_option("--output-format", o.output_format,
                "jsonl: one JSON object per input line with text, score, tokens (target pieces) and, with "
                "--n-best, an nbest list (default: text)");
  cmd->add_flag("--scores", o.scores, "Prefix each translation with its score and a tab");
  cmd->add_flag("--stats", o.stats,
                "At the end, print timings and counts as one JSON line on stderr (for benchmarks)");
  cmd->add_option(
         "--report", o.report,
         "Write how many lines carry each flag and the worst lines (FILE:LINE) as JSON to this file; "
         "also summed up on stderr")
      ->check(non_empty())
      ->type_name("FILE");
  cmd->add_flag("--progress", o.progress, "Show progress on stderr even when it is not a terminal");
  cmd->add_flag("-q,--quiet", o.quiet, "No progress and no warnings on stderr (errors still)");
  cmd->add_option("--input-dir", o.input_dir, "Translate every text file under this directory (recursively)")
      ->check(non_empty())
      ->type_name("DIR");
  cmd->add_option("--output-dir", o.output_dir, "... into the same relative paths under this directory")
      ->check(non_empty())
      ->type_name("DIR");
  cmd->add_option("--glob", o.glob, "Directory mode: only files matching this pattern (e.g. '*.txt')")
      ->type_name("PATTERN");
  cmd->add_option("--shard", o.shard,
                  "Directory mode: only shard I of N (0-based), balanced by bytes; e.g. 2/8 for clusters")
      ->capture_default_str()
      ->type_name("I/N");
  cmd->add_flag("--overwrite", o.overwrite, "Directory mode: redo every file, even those already done");
  return cmd;
}

namespace {

// Stream mode's progress: bytes and % for a regular file (also on stdin), lines for a pipe or terminal.
ProgressTotals stream_totals(const std::string& input) {
  struct stat st;
  const int ok = input == "-" ? ::fstat(0, &st) : ::stat(input.c_str(), &st);
  ProgressTotals totals;
  if (ok == 0 && S_ISREG(st.st_mode)) totals.bytes = static_cast<std::uint64_t>(st.st_size);
  return totals;
}

}  // namespace

int run_translate(const TranslateCommandOptions& options) {
  TranslateCommandOptions o = options;
  if (o.input_dir.empty() != o.output_dir.empty()) {
    throw core::UsageError("--input-dir and --output-dir go together");
  }
  if (!o.input_dir.empty() && (o.input != "-" || o.output != "-")) {
    throw core::UsageError("-i/-o and --input-dir/--output-dir are different modes: use one");
  }
  if (o.input_dir.empty() &&
      (!o.glob.empty() || o.shard != "0/1" || o.overwrite || o.flags.given("copy_other"))) {
    throw core::UsageError("--glob, --shard, --overwrite and --copy-other need --input-dir/--output-dir");
  }
  if (!o.texts.empty() && o.input_given) {
    throw core::UsageError("-i and text arguments are two inputs: give one");
  }
  if (!o.texts.empty() && !o.input_dir.empty()) {
    throw core::UsageError("text arguments and --input-dir are different modes: use one");
  }
  const pipeline::TranslateOptions given = o.flags.apply({});
  o.front = o.flags.front();
  if (given.n_best > 1 && o.scores) throw core::UsageError("--n-best already prints scores: drop --scores");
  if (o.flags.given("sampling.seed") && !given.sampling.enabled) {
    throw core::UsageError("--seed: only sampling uses it: add --sampling-topk, -topp or -temperature");
  }
  if (!o.flags.given("sampling.seed")) {  // 63 bits: the seed's range, so a rerun can give it back
    const uint64_t seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    o.flags.set("sampling.seed", static_cast<int64_t>(seed >> 1));
  }
  if (o.progress && o.quiet) throw core::UsageError("--progress and --quiet contradict each other: use one");
  if (!o.input_dir.empty()) parse_shard(o.shard);  // a bad value fails before the model loads
  const uint64_t max_memory = o.max_memory.empty() ? default_max_memory() : parse_memory_size(o.max_memory);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (o.threads > static_cast<int>(4 * cores)) {
    throw core::UsageError("--threads " + std::to_string(o.threads) + " is more than 4x this machine's " +
                           std::to_string(cores) + " cores");
  }
  const front::CoreSplit split = front::split_cores(given.replicas, o.threads, static_cast<int>(cores));
  core::set_num_threads(split.threads);
  if (!o.from.empty() && o.to.empty())
    throw core::UsageError("--from needs --to: give the target language too");
  std::optional<front::ModelCatalog> catalog;    // --from/--to or --to alone, without -m (which wins)
  std::optional<front::ModelRoute> route;        // --from/--to: the model, or the two through the pivot
  std::optional<front::ModelRoute> router_base;  // --to alone: a model into it (front/language_router.h)
  if (!o.to.empty() && !o.model_dir.empty() && !o.quiet) {
    std::cerr << "nmt: warning: -m " << o.model_dir << " (or $" << front::kModelEnv
              << ") chooses the model: --from/--to do not\n";
  }
  if (!o.to.empty() && o.model_dir.empty()) {
    catalog.emplace(front::ModelCatalog::load());
    if (o.from.empty()) {
      router_base = front::route_into(*catalog, o.to);
    } else {
      route = catalog->require_route(o.from, o.to, o.no_pivot ? "" : o.pivot);
      if (route->through_pivot()) o.first_leg_dir = route->legs.front().dir.string();
    }
    o.model_dir = (route ? *route : *router_base).legs.back().dir.string();
  }
  if (o.model_dir.empty()) o.model_dir = front::default_model_dir();

  // Open the input and the output before loading the model, so a typo or a bad target fails fast.
  const bool stream = o.input_dir.empty();
  const bool from_arguments = !o.texts.empty();
  const documents::DocumentFormat format =
      document_format(o.front.format, from_arguments || !stream ? "-" : o.input);
  const bool document = stream && format != documents::DocumentFormat::kText;
  check_document_options(o, o.front.format, document);
  LineReader reader = !stream || document ? LineReader::from_string("")
                      : o.texts.empty()   ? LineReader::open(o.input)
                                          : LineReader::from_string(text_arguments(o.texts), "argument");
  std::optional<OutputTarget> output;
  if (stream) output.emplace(OutputTarget::open(o.output));
  std::optional<OutputTarget> report_target;
  if (!o.report.empty()) report_target.emplace(OutputTarget::open(o.report));
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<const pipeline::Translator> loaded_translator;
  if (router_base) {
    loaded_translator = std::make_shared<const front::LanguageRouter>(
        *catalog, o.to, o.no_pivot ? "" : o.pivot, o.flags, front::load_route(*router_base, o.flags));
  } else {
    loaded_translator = route ? front::load_route(*route, o.flags)
                              : std::make_shared<const pipeline::Translator>(o.model_dir);
  }
  const pipeline::Translator& translator = *loaded_translator;
  if (route && route->through_pivot() && !o.quiet)
    std::cerr << "nmt: no model translates " << o.from << " to " << o.to << " directly: through "
              << route->describe() << "\n";
  o.translate = front::resolve_translate_flags(o.flags, translator);  // checked before any output
  if (const std::string w = front::source_lang_warning(o.flags, o.translate); !w.empty() && !o.quiet)
    std::cerr << "nmt: warning: " << w << "\n";
  const BatchFit fit = fit_batch_to_memory(translator, o.translate, current_budget(max_memory),
                                           core::num_threads() * split.replicas);
  if (!fit.warning.empty() && !o.quiet) std::cerr << "nmt: warning: " << fit.warning << "\n";
  if (o.translate.split_sentences && o.translate.source_lang.empty() && !o.quiet) {
    std::cerr << "nmt: warning: " << o.model_dir
              << " does not state its source language: sentences are split without abbreviations "
                 "(Mr., Dr.); give it with --source-lang\n";
  }
  o.translate.batch_size = fit.batch_size;
  const auto loaded = std::chrono::steady_clock::now();
  // A person at a terminal who gave no text would otherwise see nothing happen.
  if (stream && !from_arguments && o.input == "-" && ::isatty(0) == 1 && !o.quiet)
    std::cerr << "nmt: reading standard input; Ctrl-D to end (or give the text as arguments, or -i FILE)\n";

  if (!stream) return run_directory_mode(translator, o, report_target ? &*report_target : nullptr);
  if (document) {
    const std::string name = from_arguments ? "argument" : o.input == "-" ? "standard input" : o.input;
    const std::string bytes = from_arguments ? text_arguments(o.texts) : read_whole_input(o.input);
    ProgressBar progress(
        {0, bytes.size()},
        ProgressBar::style_for(o.progress, o.quiet, ProgressBar::interactive(o.input, o.output)));
    QualityReport report;
    translate_document_pieces(translator, o, format, bytes, name,
                              [&output](std::string_view piece) { write_document(*output, piece); },
                              {&report, &progress, 0});
    output->commit();
    progress.update(report.lines(), bytes.size());
    progress.finish();
    if (report_target) {
      report.write(*report_target);
      std::cerr << report.summary();
    }
    return 0;
  }
  core::set_gemm_profiling(o.stats);
  TranslateStats stats;
  ProgressBar progress(
      stream_totals(o.input),
      ProgressBar::style_for(o.progress, o.quiet, ProgressBar::interactive(o.input, o.output)));
  ProgressSink<OutputTarget> sink{*output, reader, progress, 0, 0, o.quiet};
  QualityReport report;
  const uint64_t malformed =
      translate_lines(translator, reader, sink, o, &stats, o.report.empty() ? nullptr : &report);
  output->commit();
  progress.finish();
  if (report_target) {
    report.write(*report_target);
    std::cerr << report.summary();
  }
  if (o.stats) print_stats(stats, loaded - start, std::chrono::steady_clock::now() - loaded);
  if (malformed > 0) {
    std::cerr << "nmt: " << malformed << " malformed input line(s), each an "
              << (o.output_format == TextFormat::kJsonl ? "{\"error\"} object" : "empty line")
              << " in the output\n";
    return kExitFailure;
  }
  return 0;
}

}  // namespace cli
