#!/bin/sh
# Directory mode's --copy-other: files the run does not translate (not matching --glob, binary) copied
# unchanged with their mode bits; a symlink and a FIFO skipped with a warning; the input untouched; a
# rerun copies nothing again; without the flag nothing is copied; outside directory mode a usage error.
# Usage: copy_other_check.sh NMT MODEL
set -eu
nmt=$1 model=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; cat "$tmp/log" 2>/dev/null; exit 1; }
mkdir -p "$tmp/in/sub"
echo "A dog runs." > "$tmp/in/a.txt"
printf 'PNG\000\001\002\377 not text' > "$tmp/in/img.png"
printf 'name,count\ndog,2\n' > "$tmp/in/notes.csv"
printf '#!/bin/sh\necho hi\n' > "$tmp/in/sub/run.sh"
chmod 0750 "$tmp/in/sub/run.sh"
ln -s a.txt "$tmp/in/link.csv"
mkfifo "$tmp/in/pipe"
before=$(cd "$tmp/in" && find . -type f -exec cksum {} + | sort)

"$nmt" translate -m "$model" -b 1 --input-dir "$tmp/in" --output-dir "$tmp/out" --glob '*.txt' --copy-other \
  2> "$tmp/log" || fail "first run exited $?"
grep -q "1 file(s) translated, .*, 3 other file(s) copied, 0 already copied, 1 not copied" "$tmp/log" ||
  fail "first run's counts"
for f in img.png notes.csv sub/run.sh; do cmp "$tmp/in/$f" "$tmp/out/$f" || fail "$f not copied unchanged"; done
test "$(stat -c %a "$tmp/out/sub/run.sh")" = 750 || fail "mode bits not kept"
test ! -e "$tmp/out/link.csv" && test ! -e "$tmp/out/pipe" || fail "a symlink or FIFO copied"
grep -q "link.csv: skipped: a symlink" "$tmp/log" || fail "no warning for the symlink"
test "$(cat "$tmp/out/a.txt")" = "$(echo 'A dog runs.' | "$nmt" translate -q -m "$model" -b 1)" ||
  fail "a.txt not translated"
test "$(cd "$tmp/in" && find . -type f -exec cksum {} + | sort)" = "$before" || fail "the input changed"

inode=$(stat -c %i "$tmp/out/img.png")
"$nmt" translate -m "$model" -b 1 --input-dir "$tmp/in" --output-dir "$tmp/out" --glob '*.txt' --copy-other \
  2> "$tmp/log" || fail "rerun exited $?"
grep -q "0 file(s) translated, 1 already done, .*, 0 other file(s) copied, 3 already copied" "$tmp/log" ||
  fail "rerun's counts"
test "$(stat -c %i "$tmp/out/img.png")" = "$inode" || fail "rerun rewrote an identical copy"

"$nmt" translate -m "$model" -b 1 --input-dir "$tmp/in" --output-dir "$tmp/plain" --glob '*.txt' 2> "$tmp/log" ||
  fail "run without the flag exited $?"
test ! -e "$tmp/plain/img.png" && test ! -e "$tmp/plain/notes.csv" || fail "copied without --copy-other"
! grep -q "copied" "$tmp/log" || fail "the summary changed without --copy-other"

set +e
"$nmt" translate -m "$model" --copy-other -i "$tmp/in/a.txt" > /dev/null 2> "$tmp/log"
code=$?
set -e
test "$code" -eq 64 && grep -q "need --input-dir" "$tmp/log" || fail "--copy-other without --input-dir: exit $code"
echo "copy-other: copied, kept modes, skipped links, resumed"
