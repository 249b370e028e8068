// Directory mode's --copy-other: the files the run does not translate copied to the same relative path
// in the output tree, their bytes and mode bits unchanged.
#pragma once

#include <string>

#include "cli/files/file_walker.h"

namespace cli {

enum class CopyOutcome { kCopied, kAlreadyThere, kSkipped };

// Copies `file` to output_dir/file.relative through a temp file and a rename, then gives the copy the
// source's mode bits. kAlreadyThere: a copy with the same bytes is there (its mode is set again), so a
// rerun writes nothing. kSkipped, with the reason in *why: the source is a symlink (not followed) or the
// destination is the source itself. Throws IoError for an unreadable source or an unwritable destination.
CopyOutcome copy_unchanged(const InputFile& file, const std::string& output_dir, std::string* why);

}  // namespace cli
