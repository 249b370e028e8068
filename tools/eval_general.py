#!/usr/bin/python3
"""BLEU of an nmt model folder on the general-domain dev splits, test_2016_flickr and the everyday sentences.

  /usr/bin/python3 tools/eval_general.py --model data/multi30k-en-de [--nmt build/nmt] [--out build/eval/NAME]

Dev splits are tools/train_data.py's (Multi30k val, Tatoeba dev, newstest2018); test_2016_flickr is for the
report only. tests/everyday/everyday.{en,de} are 20 everyday sentences with our own reference translations
(tools/train_data.py keeps every pair holding one of them out of training); their BLEU is a rough figure, the
card judges each translation by hand. A German->English model (model.json's source_lang "de") is scored on the
same sets with their sides swapped. Translations go to OUT/NAME.hyp.<target language>, one BLEU per line to
stdout and OUT/bleu.tsv.
"""
import argparse
import os
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from checkpoint import model_languages  # noqa: E402
from train_data import JUDGED, load_corpus, read_lines, test_sets  # noqa: E402


def eval_sets(multi30k_dir, general_dir):
    """name -> [(en, de)], in the order the card's table lists them."""
    corpus = load_corpus("general", multi30k_dir, general_dir)
    sets = {"tatoeba_dev": corpus["tatoeba"]["dev"], "news_dev": corpus["news"]["dev"],
            "multi30k_val": corpus["multi30k"]["dev"]}
    sets.update(test_sets(multi30k_dir))
    sets["everyday"] = list(zip(read_lines(JUDGED + ".en"), read_lines(JUDGED + ".de")))
    return sets


def model_direction(model):
    """(source, target) languages from model.json; German->English models are scored on swapped pairs."""
    direction = model_languages(model)
    if direction not in (("en", "de"), ("de", "en")):
        raise SystemExit(f"{model}: source_lang/target_lang {direction}: expected en->de or de->en")
    return direction


def translate(nmt, model, lines, threads, extra):
    result = subprocess.run([nmt, "translate", "-m", model, "--threads", str(threads), *extra],
                            input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{nmt} translate -m {model} failed ({result.returncode}): {result.stderr.strip()}")
    out = result.stdout.split("\n")[:-1]
    if len(out) != len(lines):
        raise SystemExit(f"{nmt} translate: {len(out)} lines out for {len(lines)} in")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="nmt model folder")
    ap.add_argument("--nmt", default=os.path.join(TOOLS, "..", "build", "nmt"))
    ap.add_argument("--data", default="../shared/data/multi30k", help="the Multi30k folder")
    ap.add_argument("--general-data", default=None, help="default: general-en-de beside --data")
    ap.add_argument("--out", default=None, help="where translations go (default: build/eval/<model folder name>)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sets", default=None, help="comma-separated subset of the sets (default: all)")
    ap.add_argument("nmt_args", nargs="*", help="more `nmt translate` options, after --")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(args.data)), "..", "tools"))
    from bleu import corpus_bleu  # ../shared/tools/bleu.py, sacreBLEU defaults

    general = args.general_data or os.path.join(os.path.dirname(os.path.abspath(args.data)), "general-en-de")
    out = args.out or os.path.join("build", "eval", os.path.basename(os.path.normpath(args.model)))
    os.makedirs(out, exist_ok=True)
    sets = eval_sets(args.data, general)
    source_lang, target_lang = model_direction(args.model)
    if source_lang == "de":
        sets = {name: [(de, en) for en, de in pairs] for name, pairs in sets.items()}
    wanted = args.sets.split(",") if args.sets else list(sets)
    unknown = [name for name in wanted if name not in sets]
    if unknown:
        raise SystemExit(f"--sets: unknown {', '.join(unknown)} (expected some of {', '.join(sets)})")
    rows = []
    for name in wanted:
        pairs = sets[name]
        t0 = time.time()
        hyps = translate(args.nmt, args.model, [src for src, _ in pairs], args.threads, args.nmt_args)
        with open(os.path.join(out, f"{name}.hyp.{target_lang}"), "w", encoding="utf-8") as f:
            f.write("".join(h + "\n" for h in hyps))
        bleu = corpus_bleu(hyps, [ref for _, ref in pairs])
        rows.append(f"{name}\t{len(pairs)}\t{bleu:.2f}\t{time.time() - t0:.0f}s")
        print(rows[-1], flush=True)
    with open(os.path.join(out, "bleu.tsv"), "w", encoding="utf-8") as f:
        f.write("set\tsentences\tbleu\ttime\n" + "".join(r + "\n" for r in rows))


if __name__ == "__main__":
    main()
