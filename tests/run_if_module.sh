#!/bin/sh
# Runs COMMAND when PYTHON can import MODULE; otherwise prints MARKER and why, which ctest reports as
# skipped (CMakeLists.txt gives it MARKER as SKIP_REGULAR_EXPRESSION).
# Usage: run_if_module.sh MARKER PYTHON MODULE PACKAGE COMMAND...
marker=$1 python=$2 module=$3 package=$4
shift 4
if ! "$python" -c "import $module" 2>/dev/null; then
  echo "$marker $python cannot import $module: this test needs the Debian package $package"
  exit 0
fi
exec "$@"
