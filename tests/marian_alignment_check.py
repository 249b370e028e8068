#!/usr/bin/python3
"""A Marian SSRU student's hard alignments (tests/fixtures/marian-ssru): for the first 300 lines of
Multi30k's test set, greedy and beam 4, each target piece (EOS included) is linked to the source piece
that the model's alignment head (decoding.alignment_head of decoding.alignment_layer: the head guided
alignment trained) attends most, and those links must equal marian-decoder's `--alignment hard` links
(the checked-in marian-{greedy,beam4}.align) on at least 95% of the links of the lines both translate
alike, those lines being at least 99% of all.

  tests/marian_alignment_check.py NMT_BINARY FIXTURE_DIR TEST_SET_GZ
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile


def hard_links(rows):
    """Marian's hard alignment: per target row, the first source column of the largest weight."""
    links = set()
    for t, row in enumerate(rows):
        links.add((max(range(len(row)), key=lambda s: (row[s], -s)), t))
    return links


def parse_marian(line):
    text, _, pairs = line.rstrip("\n").partition(" ||| ")
    return text, {tuple(int(x) for x in p.split("-")) for p in pairs.split()}


def main():
    nmt, fixture, test_set = sys.argv[1:4]
    with gzip.open(test_set, "rt", encoding="utf-8") as f:
        sources = [line.rstrip("\n") for _, line in zip(range(300), f)]
    status = 0
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "model")
        subprocess.run([nmt, "convert", "--from", "marian-npz", fixture, "--npz", fixture + "/model.npz",
                        "--vocab", fixture + "/vocab.ende.spm", "--source-lang", "en", "--target-lang", "de",
                        "--dtype", "f32", "-o", model], check=True, stdout=subprocess.DEVNULL)
        description = json.load(open(os.path.join(model, "model.json")))
        decoding = description["decoding"]
        layer = decoding.get("alignment_layer", description["config"]["decoder_layers"] - 1)
        head = decoding["alignment_head"]
        for name, beam in (("greedy", 1), ("beam4", 4)):
            with open(os.path.join(fixture, "marian-%s.align" % name), encoding="utf-8") as f:
                marian = [parse_marian(line) for line in f]
            same_lines = equal_links = total_links = 0
            for source, (text, links) in zip(sources, marian):
                out = subprocess.run([nmt, "attention", "-m", model, "--format", "json", "--layer", str(layer),
                                      "--head", str(head), "-b", str(beam), source],
                                     check=True, capture_output=True, text=True).stdout
                got = json.loads(out)
                if got["translation"] != text:
                    continue
                same_lines += 1
                ours = hard_links(got["cross"][0][0])
                equal_links += len(ours & links)
                total_links += len(links)
            share = equal_links / max(total_links, 1)
            print("%s: %d of %d lines translated alike; %d of %d of their links (%.1f%%) equal marian-decoder's"
                  % (name, same_lines, len(marian), equal_links, total_links, 100 * share))
            if same_lines * 100 < len(marian) * 99 or share < 0.95 or total_links == 0:
                print("FAIL: %s: under 99%% of the lines or 95%% of the links" % name)
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
