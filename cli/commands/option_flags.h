// The options table (pipeline/option_table.h) as CLI11 flags of a command.
#pragma once

#include "front/cli11_fwd.h"
#include "front/translate_flags.h"

namespace cli {

// Registers the table's options on `command` (for `nmt attention`, only those it shares). Each option's
// help ends in its default and range; a value out of range is refused at parse time with the range.
void add_option_flags(CLI::App& command, front::TranslateFlags& flags, bool attention_only = false);

}  // namespace cli
