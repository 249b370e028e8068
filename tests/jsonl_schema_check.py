"""Every record `nmt translate --output-format jsonl` writes validates against docs/jsonl-output.schema.json
and has the same keys, whatever the flags: plain, --word-scores, --n-best, --alignment, flags fired, a
malformed input line. Usage: jsonl_schema_check.py NMT MODEL_DIR SCHEMA"""
import json
import subprocess
import sys

import jsonschema

nmt, model, schema_path = sys.argv[1:4]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
validator = jsonschema.Draft202012Validator(schema)

LINES = ["A man in a blue shirt is riding a bike.", "", "Two dogs play in the snow. The sun is out.",
         "THE CHILDREN ARE PLAYING IN THE PARK.", "It costs 3.50 euros in 2024."]
RUNS = [[], ["--word-scores"], ["--n-best", "3", "-b", "4"], ["--alignment"], ["--min-confidence", "1"],
        ["--alignment", "--word-scores", "--n-best", "2"]]
failures = 0
keys_seen = set()
records = 0
for flags in RUNS:
    out = subprocess.run([nmt, "translate", "-q", "-m", model, "--threads", "1", "--output-format", "jsonl",
                          *flags], input="\n".join(LINES) + "\n", capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == len(LINES), (flags, len(rows))
    for row in rows:
        records += 1
        errors = list(validator.iter_errors(row))
        if errors:
            failures += 1
            print(f"FAIL {flags}: {errors[0].message} in {json.dumps(row)[:200]}")
        keys_seen.add(tuple(sorted(row)))
        for entry in row.get("nbest") or []:
            keys_seen.add(("nbest entry",) + tuple(sorted(entry)))

# A malformed input line is an error record, which the schema also describes.
bad = subprocess.run([nmt, "translate", "-q", "-m", model, "--input-format", "jsonl", "--output-format", "jsonl"],
                     input='{"text": 5}\n', capture_output=True, text=True)
error_row = json.loads(bad.stdout)
if list(validator.iter_errors(error_row)) or set(error_row) != {"error"}:
    failures += 1
    print(f"FAIL: the error record {bad.stdout.strip()} does not validate")
# A record missing a key must not validate: the schema checks what it claims.
broken = dict(json.loads(subprocess.run([nmt, "translate", "-q", "-m", model, "--output-format", "jsonl"],
                                        input="A dog.\n", capture_output=True, text=True).stdout))
del broken["flags"]
if validator.is_valid(broken):
    failures += 1
    print("FAIL: a record without 'flags' validates")

top = [k for k in keys_seen if k[0] != "nbest entry"]
if len(top) != 1:
    failures += 1
    print(f"FAIL: records have {len(top)} different key sets: {top}")
print(f"{records} records, {len(keys_seen)} key set(s) (top level and n-best entries), {failures} failure(s)")
sys.exit(1 if failures else 0)
