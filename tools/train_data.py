"""Training and development data for tools/train.py: the splits, the vocabulary, the batches.

Two corpora:
- multi30k: Multi30k train; dev = val (test_2016_flickr is for the report only).
- general: Multi30k + Tatoeba + WMT news from ../shared/data/general-en-de, with fixed dev splits:
  news dev = newstest2018 (the last 2,998 lines of news2008-2018, which is in year order);
  Tatoeba dev = 500 pairs drawn with a fixed seed, and every training pair sharing an English or a German
  side with a dev pair is dropped (Tatoeba repeats sentences with other translations);
  Multi30k dev = val. The splits depend on the files only, never on --seed, so every run and
  tools/eval_general.py see the same ones.
  A mix that names `kd` adds the teacher's translations of training sentences (kd.* in
  ../shared/data/general-en-de-extra) as a fourth training source with no dev split; a kd pair whose English
  or German side is a dev or test sentence is dropped, as Tatoeba's training pairs are. --synthetic NAME=PREFIX
  adds tools/synth_data.py's pairs the same way.
Every source, synthetic ones too, also loses each training pair with a side that is one of the everyday
sentences the model cards judge by hand (JUDGED, either language, compared as plain() words), so that those
judgements stay on unseen sentences.
Training mixes the sources with per-source weights: weight 2.5 takes every pair twice and a fresh random half
once more in each epoch; weight 0.5 a fresh random half.
"""
import gzip
import os
import random
import re

import sentencepiece as spm
import torch

PAD, UNK, BOS, EOS = 0, 1, 2, 3
NEWS_DEV_LINES = 2998       # newstest2018, the last year of news2008-2018
TATOEBA_DEV_PAIRS = 500
SPLIT_SEED = 36             # fixes the Tatoeba dev draw whatever --seed trains with
SOURCES = ("multi30k", "tatoeba", "news", "kd")
JUDGED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "everyday", "everyday")
WORD = re.compile(r"\w+")


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def read_pairs(prefix):
    return list(zip(read_lines(prefix + ".en.gz"), read_lines(prefix + ".de.gz")))


def plain(line):
    """A sentence's lower-cased words: how training sides are compared with judged sentences."""
    return " ".join(WORD.findall(line.lower()))


def judged_sentences(prefix=JUDGED):
    """PREFIX.en and PREFIX.de as plain() lines."""
    return {plain(line) for lang in ("en", "de") for line in read_lines(f"{prefix}.{lang}")}


def holds_judged(pair, judged):
    """Whether a side of the pair, as plain() words, is in judged (judged_sentences())."""
    return plain(pair[0]) in judged or plain(pair[1]) in judged


def drop_judged(corpus, judged):
    """Each source's training pairs less those holding a judged sentence; returns {name: pairs dropped}."""
    dropped = {}
    for name, c in corpus.items():
        kept = [p for p in c["train"] if not holds_judged(p, judged)]
        dropped[name] = len(c["train"]) - len(kept)
        c["train"] = kept
    return dropped


def write_pairs(prefix, sides):
    """PREFIX.<lang>.gz for each lang -> lines of sides (read_pairs' files), each replaced whole or not at all."""
    for lang, lines in sides.items():
        with gzip.open(f"{prefix}.{lang}.gz.tmp", "wt", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        os.replace(f"{prefix}.{lang}.gz.tmp", f"{prefix}.{lang}.gz")


def split_tatoeba(pairs):
    """(train, dev): a seeded draw for dev; training pairs sharing a side with a dev pair are dropped."""
    dev_idx = sorted(random.Random(SPLIT_SEED).sample(range(len(pairs)), TATOEBA_DEV_PAIRS))
    dev = [pairs[i] for i in dev_idx]
    dev_en, dev_de = {en for en, _ in dev}, {de for _, de in dev}
    chosen = set(dev_idx)
    train = [p for i, p in enumerate(pairs) if i not in chosen and p[0] not in dev_en and p[1] not in dev_de]
    return train, dev


def load_corpus(corpus, multi30k_dir, general_dir, extra_dir=None):
    """name -> {"train": [(en, de)], "dev": [(en, de)]} for each source of the corpus; extra_dir adds kd."""
    out = {"multi30k": {"train": read_pairs(f"{multi30k_dir}/train"), "dev": read_pairs(f"{multi30k_dir}/val")}}
    if corpus == "multi30k":
        return out
    train, dev = split_tatoeba(read_pairs(f"{general_dir}/tatoeba"))
    out["tatoeba"] = {"train": train, "dev": dev}
    news = read_pairs(f"{general_dir}/news2008-2018")
    out["news"] = {"train": news[:-NEWS_DEV_LINES], "dev": news[-NEWS_DEV_LINES:]}
    if extra_dir:
        out["kd"] = {"train": without_held_out(out, multi30k_dir, read_pairs(f"{extra_dir}/kd")), "dev": []}
    return out


def without_held_out(corpus, multi30k_dir, pairs):
    """pairs less those sharing an English or a German side with a dev or test pair."""
    held_out = [p for c in corpus.values() for p in c["dev"]] + test_sets(multi30k_dir)["test_2016_flickr"]
    held_en, held_de = {en for en, _ in held_out}, {de for _, de in held_out}
    return [p for p in pairs if p[0] not in held_en and p[1] not in held_de]


def add_synthetic(corpus, multi30k_dir, specs):
    """--synthetic NAME=PREFIX: PREFIX.en.gz / PREFIX.de.gz (tools/synth_data.py) as training source NAME."""
    for spec in specs:
        name, _, prefix = spec.partition("=")
        if not name or not prefix or name in corpus or name in SOURCES:
            raise SystemExit(f"--synthetic {spec}: expected NAME=PREFIX with a new source name")
        corpus[name] = {"train": without_held_out(corpus, multi30k_dir, read_pairs(prefix)), "dev": []}


def reversed_corpus(corpus):
    """The same splits with each pair's sides swapped: German->English training and dev data."""
    return {name: {split: [(de, en) for en, de in pairs] for split, pairs in c.items()}
            for name, c in corpus.items()}


def test_sets(multi30k_dir):
    """Report-only sets: name -> [(en, de)]."""
    return {"test_2016_flickr": read_pairs(f"{multi30k_dir}/test_2016_flickr")}


def parse_weights(text, synthetic=()):
    """'multi30k=1,tatoeba=2,news=1' -> {name: float}; synthetic: the --synthetic source names."""
    weights = {}
    known = SOURCES + tuple(synthetic)
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name not in known:
            raise SystemExit(f"--mix: unknown source '{name}' (expected one of {', '.join(known)})")
        weights[name] = float(value)
    return weights


def train_spm(corpus, prefix, vocab_size):
    """Joint unigram SentencePiece model on the English and German training sides of every source."""
    if os.path.exists(prefix + ".model"):
        return
    text = prefix + "_train.txt"
    with open(text, "w", encoding="utf-8") as f:
        # All English lines, then all German ones: for Multi30k alone, the text the bundled model's
        # vocabulary was trained on.
        for side in (0, 1):
            for source in corpus.values():
                f.write("".join(pair[side] + "\n" for pair in source["train"]))
    spm.SentencePieceTrainer.train(
        input=text, model_prefix=prefix, vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS,
        num_threads=1, shuffle_input_sentence=False, input_sentence_size=0, minloglevel=2)
    os.remove(text)


def encode_pairs(sp, pairs):
    """[(en, de)] -> [(source ids + EOS, target ids)]."""
    src = sp.encode([en for en, _ in pairs])
    tgt = sp.encode([de for _, de in pairs])
    return [(s + [EOS], t) for s, t in zip(src, tgt)]


def epoch_pairs(sources, weights, rng):
    """One epoch's training pairs: each source's pairs repeated by its weight (a random part for the fraction)."""
    out = []
    for name, pairs in sources.items():
        w = weights.get(name, 1.0)
        whole, frac = int(w), w - int(w)
        out.extend(pairs * whole)
        if frac > 0:
            out.extend(rng.sample(pairs, round(frac * len(pairs))))
    return out


def make_batches(pairs, max_tokens, rng):
    """Token-based batches of similar-length pairs, in shuffled order."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]) + rng.random(), len(pairs[i][0])))
    batches, cur, longest = [], [], 0
    for i in order:
        n = max(len(pairs[i][0]), len(pairs[i][1]) + 1)
        if cur and max(longest, n) * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def collate(pairs, idx):
    src_len = max(len(pairs[i][0]) for i in idx)
    tgt_len = max(len(pairs[i][1]) for i in idx) + 1
    src = torch.full((len(idx), src_len), PAD, dtype=torch.long)
    tin = torch.full((len(idx), tgt_len), PAD, dtype=torch.long)
    tout = torch.full((len(idx), tgt_len), PAD, dtype=torch.long)
    for r, i in enumerate(idx):
        s, t = pairs[i]
        src[r, : len(s)] = torch.tensor(s)
        tin[r, : len(t) + 1] = torch.tensor([BOS] + t)
        tout[r, : len(t) + 1] = torch.tensor(t + [EOS])
    return src, tin, tout
