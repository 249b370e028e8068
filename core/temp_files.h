// Temporary files created next to the files they become (core/atomic_file.h): unique names, removal on
// signals, and cleanup of the ones a killed run left behind.
#pragma once

#include <string>

#include "core/unique_fd.h"

namespace core {

// Creates ".BASE.tmp.HOST.PID.XXXXXX" in `dir` ("" = the current directory) with
// O_CREAT|O_EXCL|O_NOFOLLOW and mode `mode` (& ~umask): never adopts or follows an existing name.
// HOST is 8 hex digits of the host name, so runs on other machines sharing the directory are not
// taken for dead ones. Sets `*temp_path`; returns the fd, or an invalid fd with errno set.
UniqueFd create_temp_file(const std::string& dir, const std::string& base, std::string* temp_path,
                          unsigned mode = 0666);

// True if `name` (a file name, no directory) has our temp pattern and was made by a process of this
// host that no longer runs (kill(pid, 0) says ESRCH).
bool is_stale_temp_name(const std::string& name);

// Removes the stale temp files (is_stale_temp_name) directly inside `dir`; returns how many. Errors
// (an unreadable directory, a file someone else removed) are ignored: cleanup never fails a run.
int remove_stale_temp_files(const std::string& dir);

// Temp files to remove if a signal ends the process (the CLI's handler calls remove_registered_temp_files).
// A fixed table readable from a signal handler; register after creating a file and unregister once it is
// renamed or removed.
// Paths longer than the table's slot size are not registered (and then only stale cleanup finds them).
int register_temp_file(const std::string& path);  // returns a slot, or -1
void unregister_temp_file(int slot);
// Async-signal-safe: unlinks every registered path.
void remove_registered_temp_files();

}  // namespace core
