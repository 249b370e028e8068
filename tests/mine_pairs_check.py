#!/usr/bin/python3
"""tools/mine_pairs.py on a handful of lines: it pairs translations, only mutual best matches, never lines
whose numbers differ or where one side says "not", never an excluded sentence, and nothing below the scores
(the trains: each the other's best, both halves wrong). A pair whose word the German->English model copied
("Akku") is found through the dictionary's entry and not without it; one whose idiom both models translated word
for word ("What time is it?", "Wie spät ist es?") through the dictionary's phrase and not without it."""
import gzip
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
TOOL = os.path.join(TOOLS, "mine_pairs.py")
sys.path.insert(0, TOOLS)
from freedict import B64  # noqa: E402  (the index's number alphabet)

# (human English, an English->German model's German)
ENGLISH = [
    ("Where is the dog?", "Wo ist der Hund?"),
    ("I have 2 cats.", "Ich habe 2 Katzen."),
    ("The weather is nice today.", "Das Wetter ist heute schön."),
    ("She reads a green book in the garden.", "Sie liest ein grünes Buch im Garten."),
    ("Tom bought bread.", "Tom kaufte Brot."),
    ("The train is late.", "Der Zug ist spät."),
    ("My battery is flat.", "Mein Batteriemann ist flach."),
    ("Tom is not hungry.", "Tom ist nicht hungrig."),
    ("What time is it now?", "Was Zeit ist es jetzt?"),
    ("Is it cold in Tokyo now?", "Ist es jetzt kalt in Tokio?"),
] + [(f"How late is the {place} open now?", f"Wie spät ist der {place} jetzt offen?")  # nearer its translation
     for place in ("shop", "bank", "museum", "pool", "zoo", "bakery", "library", "office", "cafe", "park", "bar",
                   "market")]
# (human German, a German->English model's English)
GERMAN = [
    ("Wo ist denn der Hund?", "Where is the dog?"),
    ("Ich habe 3 Katzen.", "I have 3 cats."),
    ("Das Wetter ist heute schön.", "The weather is nice today."),
    ("Sie liest im Garten ein grünes Buch.", "She reads a green book in the garden."),
    ("Sie liest ein Buch.", "She reads a book."),
    ("Der Zug fährt um acht.", "The train leaves at eight."),
    ("Mein Akku ist leer.", "My akku is empty."),
    ("Tom ist hungrig.", "Tom is hungry."),
    ("Wie spät ist es jetzt?", "How late is it now?"),
]
WANT = {("Where is the dog?", "Wo ist denn der Hund?"),
        ("She reads a green book in the garden.", "Sie liest im Garten ein grünes Buch."),
        ("My battery is flat.", "Mein Akku ist leer."),
        ("What time is it now?", "Wie spät ist es jetzt?")}
BATTERY = ("My battery is flat.", "Mein Akku ist leer.")
TIME = ("What time is it now?", "Wie spät ist es jetzt?")
PHRASE = ("What time is it?", "Wie spät ist es?, Wieviel Uhr ist es? [ugs.]")


def write(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def b64(n):
    digits = ""
    while True:
        digits = B64[n % 64] + digits
        n //= 64
        if not n:
            return digits


def write_dictionary(prefix, entries):
    """A dictd dictionary in FreeDict's layout: a headword line, then the translations."""
    data, index = "", []
    for english, german in entries:
        entry = f"{english} /ipa/\n{german}\n"
        offset, size = len(data.encode()), len(entry.encode())
        data += entry
        index.append(f"{english}\t{b64(offset)}\t{b64(size)}\n")
    with gzip.open(prefix + ".dict.dz", "wt", encoding="utf-8") as f:
        f.write(data)
    with open(prefix + ".index", "w", encoding="utf-8") as f:
        f.write("".join(index))


def mine(tmp, dictionary):
    subprocess.run([sys.executable, TOOL, "--en-side", f"{tmp}/ft", "--de-side", f"{tmp}/bt",
                    "--exclude", f"{tmp}/judged", "--dictionary", dictionary, "--min-overlap", "0.6",
                    "--out", f"{tmp}/mined"], check=True)
    return set(zip(read(f"{tmp}/mined.en.gz"), read(f"{tmp}/mined.de.gz")))


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
    battery = ("battery", "Akkumulator <masc>, Akku <masc> [electr.]")
    flat = ("flat", "flach, leer [electr.]")
    write_dictionary(f"{tmp}/dict", [battery, flat, PHRASE])
    write_dictionary(f"{tmp}/no-battery", [flat, PHRASE])
    write_dictionary(f"{tmp}/no-phrase", [battery, flat])
    got = mine(tmp, f"{tmp}/dict")
    without_battery = mine(tmp, f"{tmp}/no-battery")
    without_phrase = mine(tmp, f"{tmp}/no-phrase")

if got != WANT or without_battery != WANT - {BATTERY} or without_phrase != WANT - {TIME}:
    print(f"mined {sorted(got)}\nwant  {sorted(WANT)}\nwithout the word {sorted(without_battery)}\n"
          f"without the phrase {sorted(without_phrase)}")
    sys.exit(1)
print(f"ok: {len(got)} pairs as expected; without the word's entry {len(without_battery)}, "
      f"without the phrase's {len(without_phrase)}")
