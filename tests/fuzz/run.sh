#!/usr/bin/env bash
# Runs every fuzz target in BUILD_DIR for SECONDS each, from seed corpora. Fails on any finding.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
corpus="$build/corpus"
python3 "$here/make_seeds.py" "$corpus"
for target in ${FUZZ_TARGETS:-fuzz_checkpoint fuzz_line_reader fuzz_spm fuzz_vocab fuzz_npz fuzz_yaml fuzz_jsonl fuzz_safetensors fuzz_documents fuzz_manifest fuzz_input_decoder fuzz_shortlist fuzz_pickle fuzz_ct2}; do
  echo "== $target for ${seconds}s"
  mkdir -p "$corpus/$target" "$build/findings/$target"
  if [ "$target" = fuzz_documents ]; then  # seeds: the fixtures, each behind the byte that picks its reader
    for f in "$here"/../fixtures/documents/*.html; do { printf '\0'; cat "$f"; } > "$corpus/$target/$(basename "$f")"; done
    for f in "$here"/../fixtures/documents/*.md; do { printf '\2'; cat "$f"; } > "$corpus/$target/$(basename "$f")"; done
    for f in "$here"/../fixtures/documents/*.xml "$here"/../fixtures/documents/*.xhtml; do
      { printf '\4'; cat "$f"; } > "$corpus/$target/$(basename "$f").xml"
    done
    for f in "$here"/../fixtures/documents/*.srt "$here"/../fixtures/documents/*.vtt; do
      { printf '\3'; cat "$f"; } > "$corpus/$target/$(basename "$f")"
    done
  fi
  # Inputs are at most 16 KiB: a parser that needs a 256 MB allocation or 1 GB resident for one has
  # amplified it (the limits catch what the size checks before inflating and parsing should stop).
  "$build/$target" -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=256 -max_len=16384 \
    -print_final_stats=1 \
    -artifact_prefix="$build/findings/$target/" "$corpus/$target" 2>&1 | tail -n 12
done
