#!/usr/bin/python3
"""tools/train.py keeps the everyday sentences the model cards judge out of training: a pair with either side
one of them (any case, any punctuation) is dropped from every source, a synthetic one too, and a pair that
only holds one inside a longer sentence stays. A tiny model on train_steps_check's made-up corpus, one update."""
import gzip
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_steps_check import report, train, write_corpus  # noqa: E402

# (English, German, judged?): tests/everyday/everyday's 1 and 18, as a corpus might spell them.
TRAIN_EXTRA = [("WHERE is the train station", "Wo ist der Hauptbahnhof?", True),
               ("How late is it?", "„Wie spät ist es?“", True),
               ("Where is the train station now?", "Wo ist der Bahnhof jetzt?", False)]
SYNTHETIC = [("Thank you very much for your help!", "Danke sehr für deine Hilfe.", True),
             ("the dog likes my friend", "der Hund mag meinen Freund", False)]


def append_pairs(prefix, pairs):
    for side, lang in ((0, "en"), (1, "de")):
        with gzip.open(f"{prefix}.{lang}.gz", "at", encoding="utf-8") as f:
            f.write("".join(p[side] + "\n" for p in pairs))


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        data = write_corpus(tmp)
        append_pairs(os.path.join(data, "train"), TRAIN_EXTRA)
        append_pairs(os.path.join(tmp, "synth"), SYNTHETIC)
        log = train(data, os.path.join(tmp, "run"), "--synthetic", f"extra={tmp}/synth", "--max-steps", "1")
        dropped = re.search(r"^pairs dropped for holding a judged everyday sentence: (.*)$", log, re.M)
        counts = re.search(r"train pairs/src tokens/tgt tokens (\{.*?\}) args", log)
        want = {"multi30k": sum(j for *_, j in TRAIN_EXTRA), "extra": sum(j for *_, j in SYNTHETIC)}
        if not dropped or json.loads(dropped.group(1)) != want:
            failures.append(f"dropped: {dropped.group(1) if dropped else 'no log line'}, expected {json.dumps(want)}")
        kept = {"multi30k": 300 + len(TRAIN_EXTRA) - want["multi30k"], "extra": len(SYNTHETIC) - want["extra"]}
        trained = {name: c[0] for name, c in json.loads(counts.group(1)).items()} if counts else None
        if trained != kept:
            failures.append(f"training pairs per source: {trained}, expected {kept}")
    return report(failures, "train.py keeps judged sentences out")


if __name__ == "__main__":
    sys.exit(main())
