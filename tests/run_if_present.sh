#!/bin/sh
# Runs COMMAND when FILE is there; otherwise prints MARKER and why, which ctest reports as skipped
# (CMakeLists.txt gives it MARKER as SKIP_REGULAR_EXPRESSION).
# Usage: run_if_present.sh MARKER FILE WHAT COMMAND...
marker=$1 file=$2 what=$3
shift 3
if [ ! -r "$file" ]; then
  echo "$marker $file not found: this test needs $what"
  exit 0
fi
exec "$@"
