#!/bin/sh
# Every header of include/nmt compiles alone, with only include/ on the include path (so an internal
# header could not be found), and includes nothing but <standard headers> and "nmt/...".
# Usage: headers_check.sh CXX SOURCE_ROOT
set -eu
cxx=$1 root=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/nmt_headers.XXXXXX")
trap 'rm -rf "$dir"' EXIT
n=0
for header in "$root"/include/nmt/*.h; do
  name=nmt/$(basename "$header")
  if grep -E '^\s*#\s*include\s+"' "$header" | grep -vE '"nmt/[a-z_]+\.h"' ; then
    echo "$name includes a header outside include/nmt"; exit 1
  fi
  printf '#include "%s"\n#include "%s"\n' "$name" "$name" > "$dir/tu.cc"
  "$cxx" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I "$root/include" "$dir/tu.cc" ||
    { echo "$name does not compile alone"; exit 1; }
  n=$((n + 1))
done
echo "$n headers compile alone"
