// `nmt translate --input-dir SRC --output-dir DST`: every text file under SRC to the same relative
// path under DST, each written atomically; resumable, shardable, per-file errors don't stop the run.
#pragma once

#include "cli/io/output_target.h"
#include "cli/io/translate_stream.h"
#include "cli/translate_command_options.h"

namespace cli {

// Returns the exit code: 0 if every file was translated or already done, 1 if any failed. `report`, when
// given (--report), receives the run's QualityReport as JSON.
int run_directory_mode(const pipeline::Translator& translator, const TranslateCommandOptions& options,
                       OutputTarget* report = nullptr);

}  // namespace cli
