#!/usr/bin/env python3
"""Measures --glossary on test sets built from the dev splits only (docs/glossary.md).

Set "dictionary": Tatoeba dev and Multi30k val sentences with one or two English nouns whose German noun in
Debian's dict-freedict-eng-deu is the one the reference uses; the glossary maps each such noun to the forms
the references use. Set "forced": sentences whose unconstrained translation uses a dictionary noun for an
English noun; the glossary forces another noun of the same dictionary entry, one the model did not choose.

For each set, with the bundled model at beam 4: the term rate (sentences whose every glossary term found in
the source has one of its forms in the output), spurious insertions (a form in the glossary output, absent
from the unconstrained output, whose source term is not in the sentence), BLEU against the references
(../shared/tools/bleu.py), the wall time of each run, and the same for the placeholder method (each source
term replaced in the source by its first target form, for the model to copy through).

Usage: tools/bench_glossary.py [--nmt build/nmt] [--limit 300] [--work DIR]
Needs dict-freedict-eng-deu (make deps-tools) and ../shared/data (the dev splits).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import freedict  # noqa: E402
import train_data  # noqa: E402  (the fixed dev splits)

STOP = set("this that with have from they them their there were what when where which would could should "
           "about your into some many much very just more most only also then than been being does done "
           "here like over such each other the and for are was you but not all can her his one our out has "
           "him how now who did its let put say she too use yes any may off own why".split())


def noun_dictionary():
    """English headword -> German nouns (single words), in the dictionary's order."""
    nouns = {}
    for word, headword, line in freedict.entries():
        if not re.fullmatch(r"[a-z]{3,}", word) or word in STOP or "<v>" in headword:
            continue
        for item in line.split(","):
            if not re.search(r"<(masc|fem|neut)>", item):
                continue
            german = re.sub(r"<[^>]*>|\[[^\]]*\]|\{[^}]*\}", "", item).strip()
            if re.fullmatch(r"[A-ZÄÖÜ][a-zäöüß]{2,}", german):
                nouns.setdefault(word, [])
                if german not in nouns[word]:
                    nouns[word].append(german)
    return nouns


def words(text):
    return re.findall(r"\w+", text.lower())


def has_word(text, word, case=False):
    return re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text, 0 if case else re.I) is not None


def dev_pairs():
    shared = os.path.join(HERE, "..", "..", "shared", "data")
    corpus = train_data.load_corpus("general", os.path.join(shared, "multi30k"),
                                    os.path.join(shared, "general-en-de"))
    return corpus["tatoeba"]["dev"] + corpus["multi30k"]["dev"]


def run_nmt(nmt, lines, work, name, extra):
    src = os.path.join(work, name + ".en")
    out = os.path.join(work, name + ".out")
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    start = time.monotonic()
    subprocess.run([nmt, "translate", "-b", "4", "--no-split", "-i", src, "-o", out] + extra, check=True)
    seconds = time.monotonic() - start
    return open(out, encoding="utf-8").read().split("\n")[:len(lines)], seconds


def write_glossary(path, glossary):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# built by tools/bench_glossary.py\n")
        for source, forms in sorted(glossary.items()):
            f.write(f"{source}\t{'|'.join(forms)}\n")


def bleu(hyps, refs, work, name):
    h, r = os.path.join(work, name + ".hyp"), os.path.join(work, name + ".ref")
    open(h, "w", encoding="utf-8").write("\n".join(hyps) + "\n")
    open(r, "w", encoding="utf-8").write("\n".join(refs) + "\n")
    tool = os.path.join(HERE, "..", "..", "shared", "tools", "bleu.py")
    out = subprocess.run([sys.executable, tool, h, r], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"[\d.]+", out).group(0))


def placeholders(lines, glossary):
    """Each source term replaced by its first target form, for the model to copy through (a made-up
    placeholder word such as "Xqa" comes back garbled by this model's pieces: "Xrobs", "Xa")."""
    sources = sorted(glossary, key=len, reverse=True)
    out = []
    for line in lines:
        for source in sources:
            if has_word(line, source):
                line = re.sub(r"(?<!\w)" + re.escape(source) + r"(?!\w)", glossary[source][0], line, flags=re.I)
        out.append(line)
    return out


def measure(nmt, work, name, pairs, glossary):
    lines = [en for en, _ in pairs]
    refs = [de for _, de in pairs]
    gpath = os.path.join(work, name + ".tsv")
    write_glossary(gpath, glossary)
    plain, plain_seconds = run_nmt(nmt, lines, work, name + ".plain", [])
    constrained, seconds = run_nmt(nmt, lines, work, name + ".glossary", ["--glossary", gpath])
    restored, held_seconds = run_nmt(nmt, placeholders(lines, glossary), work, name + ".placeholder", [])

    def rates(outputs):
        met = spurious = with_terms = 0
        for line, out, base in zip(lines, outputs, plain):
            present = [s for s in glossary if has_word(line, s)]
            if present:
                with_terms += 1
                met += all(any(form in out for form in glossary[s]) for s in present)
            allowed = {f for s in present for f in glossary[s]}
            for s, forms in glossary.items():
                if s not in present and any(f not in allowed and has_word(out, f, case=True) and
                                            not has_word(base, f, case=True) for f in forms):
                    spurious += 1
        return with_terms, met, spurious

    report = {"sentences": len(lines), "terms": len(glossary)}
    for method, outputs, secs in (("unconstrained", plain, plain_seconds), ("glossary", constrained, seconds),
                                  ("placeholder", restored, held_seconds)):
        with_terms, met, spurious = rates(outputs)
        report[method] = {"term_rate": round(100.0 * met / max(with_terms, 1), 2),
                          "sentences_with_terms": with_terms, "spurious": spurious,
                          "bleu": bleu(outputs, refs, work, f"{name}.{method}"), "seconds": round(secs, 2)}
    report["time_ratio"] = round(seconds / plain_seconds, 2)
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nmt", default=os.path.join(HERE, "..", "build", "nmt"))
    ap.add_argument("--limit", type=int, default=300, help="sentences per set")
    ap.add_argument("--work", default="/tmp/nmt-bench-glossary")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    nouns = noun_dictionary()
    pairs = dev_pairs()

    # Set 1: nouns whose dictionary translation the reference uses.
    chosen, glossary = [], {}
    for en, de in pairs:
        terms = []
        for w in dict.fromkeys(words(en)):
            uses = [g for g in nouns.get(w, []) if has_word(de, g, case=True)]
            if uses:
                terms.append((w, uses[0]))
        if 1 <= len(terms) <= 2 and len(chosen) < args.limit:
            chosen.append((en, de))
            for w, g in terms:
                glossary.setdefault(w, [])
                if g not in glossary[w]:
                    glossary[w].append(g)
    results = {"dictionary": measure(args.nmt, args.work, "dictionary", chosen, glossary)}

    # Set 2: force a noun of the same entry the model did not use.
    pool = [(en, de) for en, de in pairs if any(w in nouns and len(nouns[w]) > 1 for w in words(en))]
    pool = pool[:args.limit * 2]
    plain, _ = run_nmt(args.nmt, [en for en, _ in pool], args.work, "forced.pool", [])
    forced, picked = {}, []
    for (en, de), out in zip(pool, plain):
        for w in dict.fromkeys(words(en)):
            choices = nouns.get(w, [])
            used = [g for g in choices if has_word(out, g, case=True)]
            if used and len(choices) > 1 and len(picked) < args.limit:
                other = forced.get(w) or next(g for g in choices if g != used[0] and g not in out)
                if other in out:
                    continue
                forced[w] = other
                picked.append((en, de))
                break
    # The forced set's own unconstrained run, for the time ratio and the spurious count.
    results["forced"] = measure(args.nmt, args.work, "forced", picked, {w: [g] for w, g in forced.items()})
    print(json.dumps(results, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
