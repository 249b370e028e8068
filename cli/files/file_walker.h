// Directory mode: which input files to translate and which outputs are already done.
// (Splitting the list between shards: cli/files/shard.h.)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/unique_fd.h"

namespace cli {

struct InputFile {
  std::string path;      // root + "/" + relative: what to open
  std::string relative;  // '/'-separated path below the root: where the output goes
  dev_t dev = 0;
  ino_t ino = 0;
  std::uint64_t size = 0;
};

struct WalkOptions {
  // glob_matches() pattern (cli/files/glob_match.h); empty = every file.
  std::string glob;
  // Never descended into (compared by device and inode, so any spelling of it works). Set it to the
  // output directory: if it lies inside the input directory its files are not input. If it is the
  // root itself, walk_files throws core::UsageError.
  std::string exclude_dir;
  // Skip files that is_probably_binary() flags (with a warning)...
  bool skip_binary = true;
  // ... but those this says are binary documents (a DOCX package), when set.
  bool (*binary_document)(const std::string& path) = nullptr;
  // List the regular files the glob or the binary check leaves out in WalkResult::others (--copy-other),
  // without a warning for the binary ones.
  bool list_others = false;
};

struct WalkResult {
  std::vector<InputFile> files;       // sorted by relative path (byte order)
  std::vector<InputFile> others;      // with list_others: the files left out, sorted likewise
  std::vector<std::string> warnings;  // one line each: "PATH: skipped: why"
  std::vector<std::string> failures;  // unreadable files and directories: "PATH: what: strerror"
  int links_skipped = 0;              // symlink loops and symlinks leading out of the tree
  int too_deep = 0;                   // directories below the depth limit, not walked
};

// Lists the regular files under `root`, following symlinks that stay inside it. Every distinct path
// is listed: a hard link or an in-tree symlink to a file already seen gets its own entry (and so its
// own output). Symlink loops (a directory reached again inside itself) and symlinks leading out of
// the tree are skipped with a warning and counted, and so are directories more than 64 levels deep.
// Dangling symlinks, FIFOs, sockets, devices, binaries and the output directory are skipped with a
// warning; unreadable files and directories are failures. Our own records (".nmt-manifest*", left by
// a run whose output is now the input) are not listed. Throws IoError only if `root` itself is
// missing or not a directory.
WalkResult walk_files(const std::string& root, const WalkOptions& options = {});

// True if `path` is `dir` or lies below it, comparing resolved paths (symlinks, "." and ".."); a
// part that does not exist yet is taken literally. For the CLI to refuse an input directory inside
// the output directory, where an output could overwrite an input file not yet read.
bool path_is_within(const std::string& path, const std::string& dir);

// NUL bytes in the first 8 KiB, or more than 30% of those bytes being invalid UTF-8 or control
// characters other than \t \n \v \f \r \b ESC (Latin-1 text stays well under that). Empty = text.
// Throws IoError if the file cannot be opened or read.
bool is_probably_binary(const std::string& path);

// Refuses (IoError) an output path below `output_dir` whose directories or final name are symlinks
// (or, the final name, anything but a regular file), so no output lands outside the output tree.
// Parts that do not exist yet are fine: ensure_parent_dir creates real directories.
void check_output_path(const std::string& output_dir, const std::string& relative);

// Resume: dst is done iff it exists as a regular file (outputs are only ever created complete, by
// rename). Missing -> false; a directory or other non-file there, or a failing stat -> IoError.
bool output_is_complete(const std::string& dst);

}  // namespace cli
