"""Debian's English-German FreeDict dictionary (dict-freedict-eng-deu), read through its dictd index.

Each entry is a headword line ("battery /IPA/ <tags>"), a line of German translations separated by commas
("Akkumulator <masc>, Akku <masc> [electr.]") and indented examples, notes and cross-references.
"""
import collections
import gzip
import re

DICT = "/usr/share/dictd/freedict-eng-deu"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
TAGS = re.compile(r"<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\([^)]*\)")
WORD = re.compile(r"\w+")


def b64(s):
    v = 0
    for ch in s:
        v = v * 64 + B64.index(ch)
    return v


def entries(path=DICT):
    """(index word, headword line, translation line) for every entry, in the index's order."""
    data = gzip.open(path + ".dict.dz").read()
    with open(path + ".index", encoding="utf-8") as index:
        for line in index:
            word, off, length = line.rstrip("\n").split("\t")
            entry = data[b64(off):b64(off) + b64(length)].decode("utf-8").split("\n")
            if word and len(entry) >= 2:
                yield word, entry[0], entry[1]


def translations(line):
    """The German translations of a translation line, tags and notes removed."""
    return [t.strip() for t in TAGS.sub("", line).split(",") if t.strip()]


def word_pairs(path=DICT):
    """English word -> the set of German single-word translations, both lower-cased: the one-word entries only."""
    table = collections.defaultdict(set)
    for word, _, line in entries(path):
        english = word.lower()
        if not WORD.fullmatch(english):
            continue
        for german in translations(line):
            found = WORD.findall(german.lower())
            if len(found) == 1:
                table[english].add(found[0])
    return table
