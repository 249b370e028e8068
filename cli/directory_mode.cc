#include "cli/directory_mode.h"

#include <iostream>

#include "cli/file_walker.h"
#include "cli/gzip_sink.h"
#include "cli/io_error.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "cli/shard.h"
#include "core/error.h"

namespace cli {

int run_directory_mode(const models::Translator& translator, const TranslateCommandOptions& o) {
  const ShardSpec spec = parse_shard(o.shard);
  ensure_parent_dir(o.output_dir + "/.");
  if (path_is_within(o.input_dir, o.output_dir)) {
    // Outputs could overwrite inputs not yet read. (The reverse, output inside input, is fine: it is skipped.)
    throw core::UsageError("--input-dir " + o.input_dir + " lies inside --output-dir " + o.output_dir);
  }
  WalkOptions walk;
  walk.glob = o.glob;
  walk.exclude_dir = o.output_dir;
  const WalkResult listing = walk_files(o.input_dir, walk);
  const std::vector<InputFile> files = shard(listing.files, spec.index, spec.count);

  ProgressBar progress(files.size());
  for (const std::string& w : listing.warnings) {
    progress.clear();
    std::cerr << "nmt: warning: " << w << "\n";
  }
  size_t translated = 0, skipped = 0;
  std::vector<std::string> failures;
  for (const InputFile& file : files) {
    const std::string dst = o.output_dir + "/" + file.relative;
    try {
      if (!o.overwrite && output_is_complete(dst)) {
        ++skipped;
        progress.file_done();
        continue;
      }
      LineReader reader = LineReader::open(file.path);
      ensure_parent_dir(dst);
      AtomicOutputFile out(dst);
      TranslateStats stats;
      if (is_gzip_path(dst)) {
        GzipFileSink sink(out);
        translate_lines(translator, reader, sink, o, &stats);
        sink.finish();
      } else {
        FileSink sink{out};
        translate_lines(translator, reader, sink, o, &stats);
      }
      out.commit();
      progress.add_lines(stats.lines);
      ++translated;
    } catch (const core::Error& e) {
      failures.push_back(e.what());
      progress.clear();
      std::cerr << "nmt: error: " << e.what() << "\n";
    }
    progress.file_done();
  }
  progress.finish();
  std::cerr << "nmt: " << translated << " file(s) translated, " << skipped << " already done, " << failures.size()
            << " failed";
  if (spec.count > 1) std::cerr << " (shard " << spec.index << "/" << spec.count << " of " << listing.files.size() << " files)";
  std::cerr << "\n";
  for (const std::string& f : failures) std::cerr << "  failed: " << f << "\n";
  return failures.empty() ? 0 : 1;
}

}  // namespace cli
