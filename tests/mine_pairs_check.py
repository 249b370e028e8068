#!/usr/bin/python3
"""tools/mine_pairs.py on a handful of lines: it pairs translations, only mutual best matches, never lines
whose numbers differ, never an excluded sentence, and nothing below the score (the trains: each the
other's best, both halves wrong)."""
import gzip
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "mine_pairs.py")

# (human English, an English->German model's German)
ENGLISH = [
    ("Where is the dog?", "Wo ist der Hund?"),
    ("I have 2 cats.", "Ich habe 2 Katzen."),
    ("The weather is nice today.", "Das Wetter ist heute schön."),
    ("She reads a green book in the garden.", "Sie liest ein grünes Buch im Garten."),
    ("Tom bought bread.", "Tom kaufte Brot."),
    ("The train is late.", "Der Zug ist spät."),
]
# (human German, a German->English model's English)
GERMAN = [
    ("Wo ist denn der Hund?", "Where is the dog?"),
    ("Ich habe 3 Katzen.", "I have 3 cats."),
    ("Das Wetter ist heute schön.", "The weather is nice today."),
    ("Sie liest im Garten ein grünes Buch.", "She reads a green book in the garden."),
    ("Sie liest ein Buch.", "She reads a book."),
    ("Der Zug fährt um acht.", "The train leaves at eight."),
]
WANT = {("Where is the dog?", "Wo ist denn der Hund?"),
        ("She reads a green book in the garden.", "Sie liest im Garten ein grünes Buch.")}


def write(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def read(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


with tempfile.TemporaryDirectory() as tmp:
    write(f"{tmp}/ft.en.gz", [e for e, _ in ENGLISH])
    write(f"{tmp}/ft.de.gz", [d for _, d in ENGLISH])
    write(f"{tmp}/bt.de.gz", [g for g, _ in GERMAN])
    write(f"{tmp}/bt.en.gz", [e for _, e in GERMAN])
    with open(f"{tmp}/judged.en", "w", encoding="utf-8") as f:
        f.write("the weather is nice today\n")
    with open(f"{tmp}/judged.de", "w", encoding="utf-8") as f:
        f.write("Ein anderer Satz.\n")
    subprocess.run([sys.executable, TOOL, "--en-side", f"{tmp}/ft", "--de-side", f"{tmp}/bt",
                    "--exclude", f"{tmp}/judged", "--min-score", "0.6", "--out", f"{tmp}/mined"], check=True)
    got = set(zip(read(f"{tmp}/mined.en.gz"), read(f"{tmp}/mined.de.gz")))

if got != WANT:
    print(f"mined {sorted(got)}\nwant  {sorted(WANT)}")
    sys.exit(1)
print(f"ok: {len(got)} pairs as expected")
