#include "cli/files/directory_mode.h"

#include <cerrno>
#include <iostream>
#include <new>
#include <numeric>
#include <type_traits>

#include "cli/exit_codes.h"
#include "cli/files/copy_other.h"
#include "cli/files/file_walker.h"
#include "cli/files/manifest.h"
#include "cli/files/shard.h"
#include "cli/io/document_mode.h"
#include "cli/io/gzip_sink.h"
#include "cli/io/io_error.h"
#include "cli/io/output_file.h"
#include "cli/io/progress.h"
#include "cli/io/quality_report.h"
#include "cli/memory_limit.h"
#include "core/error.h"
#include "core/regular_file.h"
#include "front/output_options_key.h"

namespace cli {
namespace {

struct Counts {
  std::size_t translated = 0, skipped = 0, stale = 0;
  std::uint64_t malformed_lines = 0;  // --input-format jsonl
  std::vector<std::string> failures;
  std::vector<std::string> record_errors;  // resume manifest writes (the outputs themselves are fine)
  std::size_t not_attempted = 0;           // left when the device filled up
  std::size_t copied = 0, copies_there = 0, copies_skipped = 0;  // --copy-other
};

// True if a record vouches for the output at `dst`: same source, model and options, and the output is
// still the one that run wrote.
bool already_done(const Manifest& manifest, const InputFile& file, const ManifestEntry& now,
                  const std::string& dst) {
  for (const ManifestEntry& recorded : manifest.find(file.relative)) {
    if (recorded.same_origin(now) && output_matches(dst, recorded)) return true;
  }
  return false;
}

// Opens the source as a regular file (a FIFO or device put there since the listing fails, never hangs).
core::UniqueFd open_source(const InputFile& file) {
  int err = 0;
  core::UniqueFd fd = core::try_open_regular_file(file.path, &err);
  if (fd.valid()) return fd;
  if (err == EINVAL)
    throw IoError(printable_path(file.path) + ": no longer a regular file (changed since the listing)");
  throw_io_error(file.path, "cannot open for reading", err);
}

}  // namespace

int run_directory_mode(const pipeline::Translator& translator, const TranslateCommandOptions& o,
                       OutputTarget* report_target) {
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
  walk.list_others = o.front.copy_other;
  if (o.front.format == "auto" || documents::is_zip_package(document_format(o.front.format, o.input_dir))) {
    walk.binary_document = [](const std::string& path) {
      return documents::is_zip_package(documents::format_for_path(path));
    };
  }
  const WalkResult listing = walk_files(o.input_dir, walk);
  const std::vector<InputFile> files = shard(listing.files, spec.index, spec.count);
  std::vector<std::string> relatives;
  for (const InputFile& f : files) relatives.push_back(f.relative);
  Manifest manifest(o.output_dir, Manifest::file_name(spec.index, spec.count), relatives);
  const std::string model = o.first_leg_dir.empty()
                                ? model_fingerprint(o.model_dir)
                                : model_fingerprint(o.first_leg_dir) + "+" + model_fingerprint(o.model_dir);
  const std::string options = options_fingerprint(front::output_options_key(o.translate, output_shape(o)));

  ProgressTotals totals;
  totals.files = files.size();
  for (const InputFile& f : files) totals.bytes += f.size;
  ProgressBar progress(totals, ProgressBar::style_for(o.progress, o.quiet, false));
  auto warn = [&](const std::string& text) {
    if (!o.quiet) progress.print("nmt: warning: " + text);
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
  QualityReport report;
  auto fail = [&](std::vector<std::string>& list, const std::string& text) {
    list.push_back(text);
    progress.print("nmt: error: " + text);
  };
  for (const std::string& f : listing.failures) fail(counts.failures, f);
  std::uint64_t lines_done = 0, bytes_done = 0;
  bool device_full = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const InputFile& file = files[i];
    const std::string dst = o.output_dir + "/" + file.relative;
    progress.start_file(printable_path(file.relative));
    try {
      core::UniqueFd fd = open_source(file);
      ManifestEntry entry = fingerprint_source(fd.get(), file.path);
      entry.model = model;
      entry.options = options;
      check_output_path(o.output_dir, file.relative);
      const bool exists = output_is_complete(dst);
      if (!o.overwrite && exists && already_done(manifest, file, entry, dst)) {
        ++counts.skipped;
      } else {
        const documents::DocumentFormat format = document_format(o.front.format, file.path);
        ensure_parent_dir(dst);
        AtomicOutputFile out(dst);
        if (format != documents::DocumentFormat::kText) {
          const std::string bytes = read_whole_fd(fd.get(), file.path);
          write_document(out,
                         translate_document_bytes(translator, o, format, bytes, printable_path(file.relative),
                                                  {&report, &progress, bytes_done}));
        }
        LineReader reader = LineReader::adopt(std::move(fd), file.path);
        const auto translate_into = [&](auto& inner) {
          ProgressSink<std::remove_reference_t<decltype(inner)>> sink{inner,      reader,     progress,
                                                                      lines_done, bytes_done, o.quiet};
          counts.malformed_lines += translate_lines(translator, reader, sink, o, nullptr, &report);
        };
        if (format != documents::DocumentFormat::kText) {
          // written above, whole
        } else if (is_gzip_path(dst)) {  // x.txt.gz is translated into a gzip-compressed x.txt.gz
          GzipFileSink gzip_sink(out);
          translate_into(gzip_sink);
          gzip_sink.finish();
        } else {
          FileSink file_sink{out};
          translate_into(file_sink);
        }
        out.commit();
        lines_done += reader.lines_read();
        ++(exists && !o.overwrite ? counts.stale : counts.translated);
        entry.output_size = out.bytes_written();
        entry.output_hash = hex64(out.content_crc64());
        try {
          manifest.record(file.relative, entry);
        } catch (const IoError& e) {
          fail(counts.record_errors, e.what());  // the output stands; a rerun redoes it
          device_full = dynamic_cast<const NoSpace*>(&e) != nullptr;
        }
      }
    } catch (const NoSpace& e) {
      fail(counts.failures, e.what());
      device_full = true;
    } catch (const core::Error& e) {
      fail(counts.failures, e.what());
    } catch (const std::bad_alloc&) {  // one file's failure: the next may fit
      fail(counts.failures, printable_path(file.path) + ": " + not_enough_memory_message());
    } catch (const std::exception& e) {  // any other failure is this file's alone too
      fail(counts.failures, printable_path(file.path) + ": " + e.what());
    }
    if (device_full) {  // every later write would fail too: stop, keeping what is finished
      counts.not_attempted = files.size() - i - 1;
      progress.print("nmt: error: the device holding " + printable_path(o.output_dir) +
                     " is full: stopping; free space and rerun to resume");
      break;
    }
    bytes_done += file.size;
    progress.update(lines_done, bytes_done);
  }
  if (!device_full) {
    for (const InputFile& file : shard(listing.others, spec.index, spec.count)) {
      try {
        std::string why;
        const CopyOutcome outcome = copy_unchanged(file, o.output_dir, &why);
        if (outcome == CopyOutcome::kSkipped) warn(printable_path(file.path) + ": skipped: " + why);
        ++(outcome == CopyOutcome::kCopied         ? counts.copied
           : outcome == CopyOutcome::kAlreadyThere ? counts.copies_there
                                                   : counts.copies_skipped);
      } catch (const core::Error& e) {
        fail(counts.failures, e.what());
      }
    }
  }
  try {
    manifest.compact();
  } catch (const core::Error& e) {
    warn(std::string(e.what()) + " (the resume manifest stays valid, uncompacted)");
  }
  progress.finish();
  std::cerr << "nmt: " << counts.translated << " file(s) translated, " << counts.skipped << " already done, "
            << counts.stale << " retranslated (stale), " << counts.failures.size() << " failed";
  if (o.front.copy_other) {
    std::cerr << ", " << counts.copied << " other file(s) copied, " << counts.copies_there
              << " already copied";
    if (counts.copies_skipped > 0) std::cerr << ", " << counts.copies_skipped << " not copied";
  }
  if (listing.links_skipped > 0) std::cerr << ", " << listing.links_skipped << " link(s) skipped";
  if (listing.too_deep > 0) std::cerr << ", " << listing.too_deep << " too-deep director(ies) skipped";
  if (counts.not_attempted > 0) std::cerr << ", " << counts.not_attempted << " not attempted (device full)";
  if (spec.count > 1)
    std::cerr << " (shard " << spec.index << "/" << spec.count << " of " << listing.files.size() << " files)";
  if (counts.malformed_lines > 0) std::cerr << ", " << counts.malformed_lines << " malformed input line(s)";
  std::cerr << "\n";
  for (const std::string& f : counts.failures) std::cerr << "  failed: " << f << "\n";
  if (report.lines() > 0) std::cerr << report.summary();
  if (report_target) report.write(*report_target);
  if (!counts.failures.empty() || !counts.record_errors.empty() || counts.malformed_lines > 0)
    return kExitFailure;
  return nothing_matched || listing.too_deep > 0 ? kExitIncomplete : kExitOk;
}

}  // namespace cli
