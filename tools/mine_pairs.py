#!/usr/bin/python3
"""Human translation pairs mined from two monolingual files, matched through the models' translations.

  /usr/bin/python3 tools/mine_pairs.py --en-side build/synth/en-de --de-side build/synth/de-en \
      --exclude tests/everyday/everyday --out build/synth/mined

mono.en and mono.de are drawn from the same collections (mostly Tatoeba), so many English lines have a German
line that translates them. --en-side is tools/synth_data.py's output for the English lines (PREFIX.en.gz human,
PREFIX.de.gz an English->German model's), --de-side the same for the German lines. A German line g and an
English line e pair when each is the other's best match by the higher of two scores, each the lower of its
values for the two sides:
- overlap: the IDF-weighted Dice coefficient of the lower-cased word sets, e against g's English translation
  and g against e's German translation;
- coverage: the IDF-weighted share of e's words found in g's English translation or among the dictionary's
  English words for g's words and for the phrases g holds word for word, and the same for g through e. The
  dictionary (--dictionary, Debian's dict-freedict-eng-deu) finds the pairs whose words a model does not know
  ("Akku" for "battery") and whose idioms both models translate word for word ("Wie spät ist es?" for "What
  time is it?").
Each German line scores the CANDIDATES English lines nearest its translation and its phrases' English words.
A pair needs overlap >= --min-overlap or coverage >= --min-coverage, the same numbers on both sides, a negation
on both sides or on neither, and no side in an --exclude file (PREFIX.en / PREFIX.de, compared lower-cased
without punctuation), so that a judged set stays unseen. OUT.en.gz / OUT.de.gz hold the pairs, human on both
sides, for tools/train.py --synthetic NAME=OUT.
"""
import argparse
import collections
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import freedict  # noqa: E402
from train_data import WORD, holds_judged, judged_sentences, read_pairs, write_pairs  # noqa: E402

NUMBER = re.compile(r"\d+")
# A sentence says "not" when it holds one of these; English tag questions ("isn't it?") do not count.
NEGATION_EN = re.compile(r"\b(not|never|no|nobody|nothing|none|neither|nor|nowhere)\b|n't\b", re.I)
TAG_QUESTION_EN = re.compile(r"\b\w+n't (i|you|he|she|it|we|they|there)\s*\?", re.I)
NEGATION_DE = re.compile(r"\b(nicht|nie|niemals|niemand\w*|nichts|kein\w*|weder|nirgends|nirgendwo)\b", re.I)
CANDIDATES = 10         # English lines nearest a German line's translation that get the two-sided score
MAX_POSTINGS = 20000    # a word on more English lines than this is too common to look lines up by


def words(line):
    return frozenset(WORD.findall(line.lower()))


def weight(word_set, idf):
    """The IDF weights' sum, exact whatever the set's order (string hashing varies between runs)."""
    return math.fsum(idf.get(w, 1.0) for w in word_set)


def idf_table(sets):
    df = collections.Counter(w for s in sets for w in s)
    return {w: math.log(len(sets) / c) + 1.0 for w, c in df.items()}


def dice(a, b, idf):
    """IDF-weighted Dice of two word sets: 1 when equal, 0 when disjoint."""
    total = weight(a, idf) + weight(b, idf)
    return 2.0 * weight(a & b, idf) / total if total else 0.0


def coverage(human, found, idf):
    """The IDF-weighted share of a line's words that another line's translations hold."""
    total = weight(human, idf)
    return weight(human & found, idf) / total if total else 0.0


def glosses(word_set, table):
    """Every dictionary translation of the set's words."""
    found = set()
    for w in word_set:
        found |= table.get(w, set())
    return found


class PhraseTable:
    """Dictionary phrases of two or more words found word for word in a line, and the other language's words
    they translate to. One-word sources are left to the word table: their many-word glosses ("verschieben":
    "put off", "smite sb") would cover a line's "the" and "to" by chance."""

    def __init__(self, pairs):
        self.by_start = collections.defaultdict(list)  # keyed by the first two words: a line looks up few
        for source, target in pairs:
            if len(source) >= 2:
                self.by_start[source[:2]].append((source, frozenset(target)))

    def glosses(self, line):
        tokens = WORD.findall(line.lower())
        found = set()
        for i in range(len(tokens) - 1):
            for source, target in self.by_start.get((tokens[i], tokens[i + 1]), ()):
                if tuple(tokens[i:i + len(source)]) == source:
                    found |= target
        return found


def negated_en(line):
    return NEGATION_EN.search(TAG_QUESTION_EN.sub("", line)) is not None


def negated_de(line):
    return NEGATION_DE.search(line) is not None


def nearest_english(queries, en_words, idf_en):
    """For each query word set, the CANDIDATES English lines of highest IDF-weighted Dice.

    Words on more than MAX_POSTINGS lines are left out of the lookup, not of the lines' weights."""
    postings = collections.defaultdict(list)
    for j, s in enumerate(en_words):
        for w in s:
            postings[w].append(j)
    postings = {w: np.array(js, dtype=np.int32) for w, js in postings.items() if len(js) <= MAX_POSTINGS}
    en_weight = np.array([weight(s, idf_en) for s in en_words], dtype=np.float64)
    found = []
    for query in queries:
        looked_up = sorted(w for w in query if w in postings)  # one summation order in bincount
        if not looked_up:
            found.append([])
            continue
        lines = np.concatenate([postings[w] for w in looked_up])
        weights = np.concatenate([np.full(len(postings[w]), idf_en[w]) for w in looked_up])
        unique, index = np.unique(lines, return_inverse=True)
        shared = np.bincount(index, weights)
        query_weight = weight(query, idf_en)
        approx_dice = 2.0 * shared / (query_weight + en_weight[unique])
        found.append(unique[np.argsort(-approx_dice, kind="stable")[:CANDIDATES]].tolist())
    return found


def mine(en_pairs, de_pairs, en_to_de, phrases, min_overlap, min_coverage):
    """[(score, english, german)] of mutual best matches; en_pairs (human en, MT de), de_pairs (human de, MT en),
    en_to_de the dictionary (English word -> German words), phrases its (English words, German words) phrases."""
    en_words = [words(e) for e, _ in en_pairs]
    en_mt_words = [words(d) for _, d in en_pairs]
    de_words = [words(g) for g, _ in de_pairs]
    de_mt_words = [words(e) for _, e in de_pairs]
    idf_en = idf_table(en_words)
    idf_de = idf_table(de_words)
    de_to_en = collections.defaultdict(set)
    for english, germans in en_to_de.items():
        for german in germans:
            de_to_en[german].add(english)
    en_phrases = PhraseTable(phrases)
    de_phrases = PhraseTable((german, english) for english, german in phrases)
    de_phrase_glosses = [de_phrases.glosses(g) for g, _ in de_pairs]
    # A German idiom's English words join the lookup, so that "Wie spät ist es?" finds "What time is it?"
    # where its translation ("How late is it?") shares little with it.
    queries = [mt | glossed for mt, glossed in zip(de_mt_words, de_phrase_glosses)]
    en_glosses = {}

    # Each German line's best match as (score, English line, overlap, coverage); each English line's as
    # (score, German line).
    best_for_de, best_for_en = {}, {}
    for i, ranked in enumerate(nearest_english(queries, en_words, idf_en)):
        de_found = de_mt_words[i] | glosses(de_words[i], de_to_en) | de_phrase_glosses[i]
        for j in ranked:
            if j not in en_glosses:
                en_glosses[j] = (en_mt_words[j] | glosses(en_words[j], en_to_de)
                                 | en_phrases.glosses(en_pairs[j][0]))
            overlap = min(dice(de_mt_words[i], en_words[j], idf_en), dice(de_words[i], en_mt_words[j], idf_de))
            covered = min(coverage(en_words[j], de_found, idf_en), coverage(de_words[i], en_glosses[j], idf_de))
            score = max(overlap, covered)
            if score > best_for_de.get(i, (0.0,))[0]:
                best_for_de[i] = (score, j, overlap, covered)
            if score > best_for_en.get(j, (0.0, -1))[0]:
                best_for_en[j] = (score, i)

    mined = []
    for i, (score, j, overlap, covered) in best_for_de.items():
        if best_for_en[j][1] != i or (overlap < min_overlap and covered < min_coverage):
            continue
        english, german = en_pairs[j][0], de_pairs[i][0]
        if sorted(NUMBER.findall(english)) != sorted(NUMBER.findall(german)):
            continue
        if negated_en(english) != negated_de(german):
            continue
        mined.append((score, english, german))
    return mined


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--en-side", required=True, help="PREFIX: human English PREFIX.en.gz, its German PREFIX.de.gz")
    ap.add_argument("--de-side", required=True, help="PREFIX: human German PREFIX.de.gz, its English PREFIX.en.gz")
    ap.add_argument("--exclude", action="append", default=[], metavar="PREFIX",
                    help="PREFIX.en / PREFIX.de: sentences no mined pair may contain")
    ap.add_argument("--dictionary", default=freedict.DICT,
                    help="an English-German dictd dictionary: PREFIX.index and PREFIX.dict.dz (default %(default)s)")
    ap.add_argument("--min-overlap", type=float, default=0.75)
    ap.add_argument("--min-coverage", type=float, default=0.8)
    ap.add_argument("--out", required=True, help="OUT.en.gz and OUT.de.gz are the pairs")
    args = ap.parse_args()

    if not os.path.exists(args.dictionary + ".index"):
        sys.exit(f"mine_pairs: {args.dictionary}.index: no such dictionary (apt-get install dict-freedict-eng-deu)")
    en_to_de, phrases = freedict.translation_tables(args.dictionary)
    en_pairs = read_pairs(args.en_side)
    de_pairs = [(german, english) for english, german in read_pairs(args.de_side)]
    excluded = set().union(*(judged_sentences(prefix) for prefix in args.exclude))
    mined = [m for m in mine(en_pairs, de_pairs, en_to_de, phrases, args.min_overlap, args.min_coverage)
             if not holds_judged(m[1:], excluded)]
    mined.sort(key=lambda m: -m[0])
    write_pairs(args.out, {"en": [m[1] for m in mined], "de": [m[2] for m in mined]})
    print(f"mine_pairs: {len(mined)} pairs from {len(en_pairs)} English and {len(de_pairs)} German lines "
          f"(overlap >= {args.min_overlap} or coverage >= {args.min_coverage}) in {args.out}.{{en,de}}.gz")


if __name__ == "__main__":
    main()
