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
PHRASE_WORDS = 6  # longer entries are explanations, not phrases a sentence holds word for word


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


def translation_tables(path=DICT, longest=PHRASE_WORDS):
    """Both tables from one read of the dictionary, every word lower-cased:
    - English word -> the set of its German single-word translations (one-word entries only);
    - the sorted (English words, German words) pairs, word tuples in order, of every entry where a side has two
      to `longest` words: the idioms a word table misses ("What time is it?": "Wie spät ist es?")."""
    words, phrases = collections.defaultdict(set), set()
    for word, _, line in entries(path):
        headword = word.lower()
        english = tuple(WORD.findall(headword))
        one_word = WORD.fullmatch(headword) is not None
        for german in translations(line):
            found = tuple(WORD.findall(german.lower()))
            if one_word and len(found) == 1:
                words[headword].add(found[0])
            if 1 <= len(english) <= longest and 1 <= len(found) <= longest and max(len(english), len(found)) >= 2:
                phrases.add((english, found))
    return words, sorted(phrases)
