#!/usr/bin/env bash
# Runs every fuzz target in BUILD_DIR for SECONDS each, from seed corpora, FUZZ_JOBS (default: the cores)
# targets at a time. Fails on any finding.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:-600}
jobs=${FUZZ_JOBS:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
corpus="$build/corpus"
python3 "$here/make_seeds.py" "$corpus"

seed_documents() {  # the fixtures, each behind the byte that picks its reader
  local dir=$1 f
  for f in "$here"/../fixtures/documents/*.html; do { printf '\0'; cat "$f"; } > "$dir/$(basename "$f")"; done
  for f in "$here"/../fixtures/documents/*.md; do { printf '\2'; cat "$f"; } > "$dir/$(basename "$f")"; done
  for f in "$here"/../fixtures/documents/*.xml "$here"/../fixtures/documents/*.xhtml; do
    { printf '\4'; cat "$f"; } > "$dir/$(basename "$f").xml"
  done
  for f in "$here"/../fixtures/documents/*.srt "$here"/../fixtures/documents/*.vtt; do
    { printf '\3'; cat "$f"; } > "$dir/$(basename "$f")"
  done
}

# run_target NAME: fuzzes one target; its log is kept whole in the findings folder, its tail printed.
run_target() {
  local target=$1 status=0
  mkdir -p "$corpus/$target" "$build/findings/$target"
  [ "$target" = fuzz_documents ] && seed_documents "$corpus/$target"
  # Inputs are at most 16 KiB: a parser that needs a 256 MB allocation or 1 GB resident for one has
  # amplified it (the limits catch what the size checks before inflating and parsing should stop).
  "$build/$target" -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$build/findings/$target/" "$corpus/$target" \
    > "$build/findings/$target.log" 2>&1 || status=$?
  { echo "== $target for ${seconds}s (exit $status)"; tail -n 12 "$build/findings/$target.log"; } > "$build/findings/$target.summary"
  return "$status"
}

targets=(${FUZZ_TARGETS:-fuzz_checkpoint fuzz_line_reader fuzz_spm fuzz_vocab fuzz_npz fuzz_yaml fuzz_jsonl
  fuzz_safetensors fuzz_documents fuzz_office fuzz_manifest fuzz_input_decoder fuzz_shortlist fuzz_pickle})
failed=()
declare -A running=()  # pid -> target
reap() {  # waits for one target to end and prints its summary
  local pid status=0
  wait -n -p pid "${!running[@]}" || status=$?
  cat "$build/findings/${running[$pid]}.summary"
  ((status == 0)) || failed+=("${running[$pid]}")
  unset "running[$pid]"
}
for target in "${targets[@]}"; do
  ((${#running[@]} < jobs)) || reap
  run_target "$target" &
  running[$!]=$target
done
while ((${#running[@]} > 0)); do reap; done
if ((${#failed[@]} > 0)); then
  echo "fuzzing found something in: ${failed[*]} (inputs under $build/findings/)"
  exit 1
fi
