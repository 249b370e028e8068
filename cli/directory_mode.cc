#include "cli/directory_mode.h"

#include <cerrno>
#include <chrono>
#include <iostream>
#include <numeric>
#include <type_traits>

#include "cli/exit_codes.h"
#include "cli/file_walker.h"
#include "cli/gzip_sink.h"
#include "cli/io_error.h"
#include "cli/manifest.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "cli/shard.h"
#include "core/error.h"

namespace cli {
namespace {

// The manifest is rewritten at most this often (and at the end): a run killed in between redoes the
// files finished since, which is safe, only slower.
constexpr auto kManifestInterval = std::chrono::seconds(1);

struct Counts {
  std::size_t translated = 0, skipped = 0, stale = 0;
  std::uint64_t malformed_lines = 0;  // --input-format jsonl
  std::vector<std::string> failures;
};

// Everything that changes what a file's translation looks like, resolved against the model.
std::string output_options_key(const TranslateCommandOptions& o) {
  const models::TranslateOptions& t = o.translate;
  nlohmann::json j = {
      {"beam_size", t.beam_size},
      {"length_penalty", t.length_penalty},
      {"max_length", t.max_length},
      {"max_length_a", t.max_length_a},
      {"max_length_b", t.max_length_b},
      {"n_best", t.n_best},
      {"target_lang", t.target_lang},
      {"scores", o.scores},
      {"alignment", t.alignment ? nlohmann::json(t.alignment_layer) : nlohmann::json(nullptr)},
      {"input_format", o.input_format == TextFormat::kJsonl ? "jsonl" : "text"},
      {"output_format", o.output_format == TextFormat::kJsonl ? "jsonl" : "text"},
      {"sampling", !t.sampling.enabled ? nlohmann::json(nullptr)
                                       : nlohmann::json{t.sampling.top_k, t.sampling.top_p,
                                                        t.sampling.temperature, t.sampling.seed}}};
  // Only when on, so that runs without them keep their key.
  if (t.repetition_penalty != 1.0f) j["repetition_penalty"] = t.repetition_penalty;
  if (t.no_repeat_ngram_size > 0) j["no_repeat_ngram_size"] = t.no_repeat_ngram_size;
  if (t.word_scores) j["word_scores"] = true;
  return j.dump();
}

// Opens the source as a regular file (a FIFO or device put there since the listing fails, never hangs).
core::UniqueFd open_source(const InputFile& file) {
  int err = 0;
  core::UniqueFd fd = open_regular(file.path, &err);
  if (fd.valid()) return fd;
  if (err == EINVAL)
    throw IoError(printable_path(file.path) + ": no longer a regular file (changed since the listing)");
  throw_io_error(file.path, "cannot open for reading", err);
}

}  // namespace

int run_directory_mode(const models::Translator& translator, const TranslateCommandOptions& o) {
  const ShardSpec spec = parse_shard(o.shard);
  ensure_parent_dir(o.output_dir + "/.");
  if (path_is_within(o.input_dir, o.output_dir)) {
    // Outputs could overwrite inputs not yet read. (The reverse, output inside input, is fine: it is
    // skipped.)
    throw core::UsageError("--input-dir " + o.input_dir + " lies inside --output-dir " + o.output_dir);
  }
  WalkOptions walk;
  walk.glob = o.glob;
  walk.exclude_dir = o.output_dir;
  const WalkResult listing = walk_files(o.input_dir, walk);
  const std::vector<InputFile> files = shard(listing.files, spec.index, spec.count);
  Manifest manifest(o.output_dir, Manifest::file_name(spec.index, spec.count));
  const std::string model = model_fingerprint(o.model_dir);
  const std::string options_key = output_options_key(o);

  ProgressTotals totals;
  totals.files = files.size();
  for (const InputFile& f : files) totals.bytes += f.size;
  ProgressBar progress(totals, ProgressBar::wanted(o.progress, o.quiet));
  auto warn = [&](const std::string& text) {
    if (o.quiet) return;
    progress.clear();
    std::cerr << "nmt: warning: " << text << "\n";
  };
  for (const std::string& w : listing.warnings) warn(w);
  for (const std::string& w : manifest.warnings()) warn(w);
  const bool nothing_matched = listing.files.empty();
  if (nothing_matched) {
    warn(o.glob.empty()
             ? printable_path(o.input_dir) + ": no text files to translate"
             : printable_path(o.input_dir) + ": no file matches --glob '" + printable_path(o.glob) + "'");
  }

  Counts counts;
  std::uint64_t lines_done = 0, bytes_done = 0;
  auto last_save = std::chrono::steady_clock::now();
  for (const InputFile& file : files) {
    const std::string dst = o.output_dir + "/" + file.relative;
    try {
      core::UniqueFd fd = open_source(file);
      ManifestEntry entry = fingerprint_source(fd.get(), file.path);
      entry.model = model;
      entry.options = options_key;
      const bool exists = output_is_complete(dst);
      const ManifestEntry* recorded = manifest.find(file.relative);
      if (!o.overwrite && exists && recorded != nullptr && *recorded == entry) {
        ++counts.skipped;
      } else {
        LineReader reader = LineReader::adopt(std::move(fd), file.path);
        ensure_parent_dir(dst);
        AtomicOutputFile out(dst);
        const auto translate_into = [&](auto& inner) {
          ProgressSink<std::remove_reference_t<decltype(inner)>> sink{inner,      reader,     progress,
                                                                      lines_done, bytes_done, o.quiet};
          counts.malformed_lines += translate_lines(translator, reader, sink, o, nullptr);
        };
        if (is_gzip_path(dst)) {  // x.txt.gz is translated into a gzip-compressed x.txt.gz
          GzipFileSink gzip_sink(out);
          translate_into(gzip_sink);
          gzip_sink.finish();
        } else {
          FileSink file_sink{out};
          translate_into(file_sink);
        }
        out.commit();
        lines_done += reader.lines_read();
        manifest.record(file.relative, entry);
        ++(exists && !o.overwrite ? counts.stale : counts.translated);
        if (std::chrono::steady_clock::now() - last_save >= kManifestInterval) {
          manifest.save();
          last_save = std::chrono::steady_clock::now();
        }
      }
    } catch (const core::Error& e) {
      counts.failures.push_back(e.what());
      progress.clear();
      std::cerr << "nmt: error: " << e.what() << "\n";
    }
    bytes_done += file.size;
    progress.update(lines_done, bytes_done);
    progress.file_done();
  }
  try {
    manifest.save();
  } catch (const core::Error& e) {
    counts.failures.push_back(e.what());
    std::cerr << "nmt: error: " << e.what() << "\n";
  }
  progress.finish();
  std::cerr << "nmt: " << counts.translated << " file(s) translated, " << counts.skipped << " already done, "
            << counts.stale << " retranslated (stale), " << counts.failures.size() << " failed";
  if (listing.links_skipped > 0) std::cerr << ", " << listing.links_skipped << " link(s) skipped";
  if (listing.too_deep > 0) std::cerr << ", " << listing.too_deep << " too-deep director(ies) skipped";
  if (spec.count > 1)
    std::cerr << " (shard " << spec.index << "/" << spec.count << " of " << listing.files.size() << " files)";
  if (counts.malformed_lines > 0) std::cerr << ", " << counts.malformed_lines << " malformed input line(s)";
  std::cerr << "\n";
  for (const std::string& f : counts.failures) std::cerr << "  failed: " << f << "\n";
  if (!counts.failures.empty() || counts.malformed_lines > 0) return kExitFailure;
  return nothing_matched || listing.too_deep > 0 ? kExitIncomplete : kExitOk;
}

}  // namespace cli
