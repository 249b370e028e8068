"""The Python module `nmt` against the command line: translate_batch's texts and scores equal `nmt
translate`'s, a CTranslate2 script runs with only its import line changed, score_batch agrees with the
beam, two threads on one Translator give one thread's results (and the ratio of their times is printed:
the GIL is released), a glossary's terms (inline or a file) give --term's translations, errors are
nmt.Error with a code, documents and files translate.
Usage: python_check.py NMT_BINARY MODEL_DIR (with the module on PYTHONPATH)"""
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

import nmt

nmt_binary, model = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
LINES = ["A dog runs in the park.", "Two men are talking on the street.", "", "A girl in a red coat.",
         "The children are laughing.", "A man is cooking dinner.", "A woman rides a bike.",
         "Three people sit on a bench near the water."]
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


def cli(lines, *flags):
    run = subprocess.run([nmt_binary, "translate", "-q", "-m", model, *flags], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


translator = nmt.Translator(model, threads=2)
expect(translator.threads == 2 and translator.info()["source_lang"] == "en", "threads and info()")

# Plain texts, then the n best with scores, as the CLI gives them (Marian's n-best lines).
results = translator.translate_batch(LINES)
expect([r.hypotheses[0] for r in results] == cli(LINES), "translate_batch's texts equal nmt translate's")
expect(results[0].scores == [], "no scores without return_scores, as CTranslate2")
results = translator.translate_batch(LINES, beam_size=5, num_hypotheses=2, return_scores=True)
n_best = [line.split(" ||| ") for line in cli(LINES, "-b", "5", "--n-best", "2")]
ours = [(str(i), r.hypotheses[k], r.raw_scores[k], r.scores[k]) for i, r in enumerate(results) for k in range(len(r))]
expect(len(ours) == len(n_best), "as many hypotheses as the CLI's n-best list")
for (i, text, raw, score), fields in zip(ours, n_best):
    expect(fields[0] == i and fields[1] == text, f"hypothesis {fields} vs {text!r}")
    if fields[1]:
        expect(abs(float(fields[2].split("=")[1]) - raw) < 1e-3 and abs(float(fields[3]) - score) < 1e-3,
               f"scores of {text!r}: {fields[2:]} vs {raw}, {score}")
expect(results[0][0]["text"] == results[0].hypotheses[0] and "score" in results[0][0], "result[i] as CTranslate2's")

# CTranslate2's script, only the import changed (needs sentencepiece, as CTranslate2 users have).
try:
    import sentencepiece  # noqa: F401
    run = subprocess.run([sys.executable, os.path.join(here, "ct2_style.py"), model], capture_output=True, text=True,
                         input="\n".join(l for l in LINES if l) + "\n", env=dict(os.environ))
    expect(run.returncode == 0, f"the CTranslate2 script runs: {run.stderr[-500:]}")
    best = [line.split(" ||| ")[0] for line in run.stdout.splitlines()]
    expect(best == cli([l for l in LINES if l], "-b", "5"), f"the CTranslate2 script's best equal the CLI's: {best}")
except ImportError:
    print("sentencepiece is not importable: the CTranslate2-style script is not run")

# A forced target prefix, as text or as tokens.
for prefix in ("Eine Katze", ["\u2581Eine", "\u2581Katze"]):
    forced = translator.translate_batch(["A dog runs in the park."], target_prefix=[prefix])[0].hypotheses[0]
    expect(forced.startswith("Eine Katze"), f"target_prefix {prefix!r}: {forced!r}")

# Forced decoding agrees with the beam's own raw scores (loop guards and shortlist off in both).
plain = dict(split_sentences=False, no_repeat_ngram_size=0, shortlist="off")
best = translator.translate_batch(LINES[:2], return_scores=True, **plain)
scored = translator.score_batch(LINES[:2], [r.hypotheses[0] for r in best], **plain)
for r, s in zip(best, scored):
    expect(abs(r.raw_scores[0] - s.score) < 1e-4 and abs(sum(s.log_probs) - s.score) < 1e-4,
           f"forced {s.score} vs beam {r.raw_scores[0]}")
    expect(s.tokens[-1] == "</s>" and len(s.tokens) == len(s.log_probs), "a log-prob per token and EOS")

# Two threads on one Translator (one thread each): the same results, and the time ratio.
single = nmt.Translator(model, threads=1)
batch = [f"{line} A man is walking with {n} dogs." for n in range(6) for line in LINES if line]
start = time.perf_counter()
expected = [single.translate_batch(batch), single.translate_batch(batch)]
sequential = time.perf_counter() - start
got = [None, None]
workers = [threading.Thread(target=lambda k=k: got.__setitem__(k, single.translate_batch(batch))) for k in range(2)]
start = time.perf_counter()
for w in workers:
    w.start()
for w in workers:
    w.join()
concurrent = time.perf_counter() - start
same = all([r.hypotheses for r in got[k]] == [r.hypotheses for r in expected[k]] for k in range(2))
expect(same, "two Python threads give one thread's results")
print(f"two threads: {sequential:.2f} s one after the other, {concurrent:.2f} s at once: "
      f"{sequential / concurrent:.2f}x (the GIL is released; the ratio depends on free cores)")

# A glossary, as --term and --glossary give it: inline terms (a dict, forms as "A|B" or a list; or
# "SOURCE=TARGET" strings) or a file. "Köter" is a word for dog the model does not choose itself.
TERM_LINES = ["A dog runs in the park.", "A cat sleeps on the sofa."]
expected = cli(TERM_LINES, "--term", "dog=Köter|Köters")
expect("Köter" in expected[0] and "Köter" not in expected[1], f"the CLI's glossary output: {expected}")
with tempfile.TemporaryDirectory() as tmp:
    glossary = pathlib.Path(tmp) / "terms.tsv"
    glossary.write_text("# source\ttarget forms\ndog\tKöter|Köters\n", encoding="utf-8")
    for terms in ({"terms": {"dog": "Köter|Köters"}}, {"terms": {"dog": ["Köter", "Köters"]}},
                  {"terms": ["dog=Köter|Köters"]}, {"glossary": glossary}, {"glossary": str(glossary)}):
        got = [r.hypotheses[0] for r in translator.translate_batch(TERM_LINES, **terms)]
        expect(got == expected, f"translate_batch({terms}) equals nmt translate --term: {got}")
html = translator.translate_document("<p>A <b>dog</b> runs.</p>", "html", terms={"dog": "Köter"})
expect("Köter" in html and "<b>" in html, f"a term in a document: {html!r}")
for bad, error in (({"terms": {"a=b": "c"}}, ValueError), ({"terms": "dog=Köter"}, TypeError),
                   ({"terms": ["dog=Köter\ncat=Mieze"]}, ValueError), ({"terms": ["dog"]}, nmt.Error),
                   ({"glossary": "/nonexistent/terms.tsv"}, nmt.Error)):
    try:
        translator.translate_batch(TERM_LINES, **bad)
        expect(False, f"{bad} raises {error.__name__}")
    except error as e:
        expect(not isinstance(e, nmt.Error) or e.code == "invalid-argument", f"{bad}: {e} ({getattr(e, 'code', '')})")
        expect("nonexistent" in str(e) or "glossary" not in bad, f"the error names the file: {e}")

# Errors, documents, files.
try:
    translator.translate_batch(["A dog."], beam_size=0)
    expect(False, "beam_size=0 raises")
except nmt.Error as e:
    expect(e.code == "invalid-argument" and "beam_size" in str(e), f"nmt.Error: {e} ({e.code})")
try:
    nmt.Translator("/nonexistent/model")
    expect(False, "a missing model raises")
except nmt.Error as e:
    expect(e.code == "model", f"missing model: {e.code}")
html = translator.translate_document(b"<p>A <b>dog</b> runs.</p>", "html")
expect(isinstance(html, bytes) and html.startswith(b"<p>") and b"<b>" in html, f"HTML kept: {html!r}")
with tempfile.TemporaryDirectory() as tmp:
    source, target = os.path.join(tmp, "in.txt"), os.path.join(tmp, "out.txt")
    with open(source, "w", encoding="utf-8") as f:
        f.write("\n".join(LINES) + "\n")
    expect(translator.translate_file(source, target) == len(LINES), "translate_file counts the lines")
    with open(target, encoding="utf-8") as f:
        expect(f.read().splitlines() == cli(LINES), "translate_file's output equals nmt translate's")

# A model installed into the models home is found by its name and by its pair, before the bundled one.
with tempfile.TemporaryDirectory() as home:
    import shutil
    shutil.copytree(model, os.path.join(home, "my-en-de"))
    os.environ["NMT_MODELS_DIR"] = home
    for name in ("my-en-de", "en-de", "eng-deu"):
        found = nmt.Translator(name, threads=1).info()["model_dir"]
        expect(found == os.path.join(home, "my-en-de"), f"Translator({name!r}) loads the installed model: {found}")
    del os.environ["NMT_MODELS_DIR"]

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("python module check passed")
