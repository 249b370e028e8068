// docs/cli-reference.md: every command's options as Markdown, read from the same CLI11 definitions that
// --help prints (translation options come from pipeline/option_table.cc), so the two cannot drift.
#pragma once

#include <string>

#include "front/cli11_fwd.h"

namespace cli {

// The reference of `app`'s commands (`nmt help --markdown`): per command its description, usage, a table
// of options with their help text, and its footer.
std::string markdown_reference(const CLI::App& app);

}  // namespace cli
