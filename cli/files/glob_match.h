// Directory mode's --glob: fnmatch() per path segment, with "**" as any number of directories.
#pragma once

#include <string>

namespace cli {

// True if `relative` ('/'-separated path below the input directory) matches `glob`. Empty = every
// file. A pattern without '/' matches the basename at any depth ("*.txt"). A pattern with '/' matches
// the whole path segment by segment, '*' never crossing a '/' ("docs/*.txt" is docs' direct children);
// a "**" segment matches zero or more directories, as in gitignore and shells' globstar
// ("**/*.txt" is every .txt, "docs/**" everything below docs).
bool glob_matches(const std::string& glob, const std::string& relative);

}  // namespace cli
