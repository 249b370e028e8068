"""The fixtures' text (tools/make_fixtures.py): built-in sentences the tiny tokenizers are trained on,
the tokenizers themselves, the Marian vocabulary and the test sentences.
"""
import os
import random
import shutil
import tempfile
from collections import OrderedDict

import sentencepiece as spm


# ----------------------------------------------------------------------------------------------
# Built-in training text for the tokenizers (not the corpus files)

EN_SUBJECTS = [("a man", "is"), ("a woman", "is"), ("the boy", "is"), ("the girl", "is"), ("two dogs", "are"),
               ("three children", "are"), ("an old man", "is"), ("a young woman", "is"), ("the people", "are"),
               ("a group of friends", "is"), ("my brother", "is"), ("the teacher", "is"), ("a small cat", "is"),
               ("the musicians", "are"), ("a worker", "is"), ("several tourists", "are"), ("her mother", "is")]
EN_ACTIONS = ["riding a bicycle", "playing football", "reading a book", "walking along the beach",
              "eating an apple", "climbing a rock", "waiting for the bus", "singing a song", "painting a wall",
              "swimming in the lake", "cooking dinner", "looking at the camera", "sitting on a bench",
              "running through the park", "holding a red umbrella", "talking on the phone",
              "selling fruit at the market", "jumping into the water", "carrying a heavy box",
              "wearing a green jacket", "drinking coffee", "writing a letter", "dancing with a friend",
              "watching the birds", "building a snowman", "fixing a car", "taking a picture"]
EN_PLACES = ["in the city", "near the river", "at night", "in the morning", "under a tree", "on the street",
             "in front of the house", "during the summer", "next to the window", "outside the station",
             "in the snow", "at the wooden table", "in the rain", "on a sunny day", "behind the school"]
EN_EXTRA = ["Hi!", "Hello, how are you?", "It is raining.", "The sun is shining.", "Where is the station?",
            "Thank you very much.", "I do not know.", "What time is it?", "Yes.", "No, thanks.",
            "We are going home now.", "This is a very good idea.", "They have two cats and a dog."]

DE_SUBJECTS = [("ein Mann", 0), ("eine Frau", 0), ("der Junge", 0), ("das Mädchen", 0), ("zwei Hunde", 1),
               ("drei Kinder", 1), ("ein alter Mann", 0), ("eine junge Frau", 0), ("die Leute", 1),
               ("eine Gruppe von Freunden", 0), ("mein Bruder", 0), ("der Lehrer", 0), ("eine kleine Katze", 0),
               ("die Musiker", 1), ("ein Arbeiter", 0), ("mehrere Touristen", 1), ("ihre Mutter", 0)]
DE_ACTIONS = [("fährt Fahrrad", "fahren Fahrrad"), ("spielt Fußball", "spielen Fußball"),
              ("liest ein Buch", "lesen ein Buch"), ("geht am Strand entlang", "gehen am Strand entlang"),
              ("isst einen Apfel", "essen einen Apfel"), ("klettert auf einen Felsen", "klettern auf einen Felsen"),
              ("wartet auf den Bus", "warten auf den Bus"), ("singt ein Lied", "singen ein Lied"),
              ("streicht eine Wand", "streichen eine Wand"), ("schwimmt im See", "schwimmen im See"),
              ("kocht das Abendessen", "kochen das Abendessen"), ("schaut in die Kamera", "schauen in die Kamera"),
              ("sitzt auf einer Bank", "sitzen auf einer Bank"), ("läuft durch den Park", "laufen durch den Park"),
              ("hält einen roten Schirm", "halten einen roten Schirm"), ("telefoniert", "telefonieren"),
              ("verkauft Obst auf dem Markt", "verkaufen Obst auf dem Markt"),
              ("springt ins Wasser", "springen ins Wasser"), ("trägt eine schwere Kiste", "tragen eine schwere Kiste"),
              ("trinkt Kaffee", "trinken Kaffee"), ("schreibt einen Brief", "schreiben einen Brief"),
              ("tanzt mit einem Freund", "tanzen mit einem Freund"), ("beobachtet die Vögel", "beobachten die Vögel"),
              ("baut einen Schneemann", "bauen einen Schneemann"), ("repariert ein Auto", "reparieren ein Auto")]
DE_PLACES = ["in der Stadt", "am Fluss", "in der Nacht", "am Morgen", "unter einem Baum", "auf der Straße",
             "vor dem Haus", "im Sommer", "neben dem Fenster", "vor dem Bahnhof", "im Schnee",
             "am Holztisch", "im Regen", "an einem sonnigen Tag", "hinter der Schule"]
DE_EXTRA = ["Hallo!", "Wie geht es dir?", "Es regnet.", "Die Sonne scheint.", "Wo ist der Bahnhof?",
            "Vielen Dank.", "Ich weiß es nicht.", "Wie spät ist es?", "Ja.", "Nein, danke.",
            "Wir gehen jetzt nach Hause.", "Das ist eine sehr gute Idee.", "Sie haben zwei Katzen und einen Hund."]

# Normalization rules for the joint tokenizer (a small precompiled charsmap, like nmt_nfkc's but tiny):
# full-width ASCII -> ASCII, the fi ligature, the ellipsis, no-break space.
NORM_RULES = ([(0xFF01 + i, [0x21 + i]) for i in range(94)] +
              [(0xFB01, [0x66, 0x69]), (0x2026, [0x2E, 0x2E, 0x2E]), (0x00A0, [0x20])])


def corpus():
    """A few hundred deterministic English and German-ish lines."""
    rng = random.Random(7)
    en, de = list(EN_EXTRA), list(DE_EXTRA)
    for _ in range(320):
        subj, verb = rng.choice(EN_SUBJECTS)
        line = f"{subj} {verb} {rng.choice(EN_ACTIONS)}"
        if rng.random() < 0.7:
            line += " " + rng.choice(EN_PLACES)
        en.append(line[0].upper() + line[1:] + rng.choice([".", ".", ".", "!", "?"]))
        subj, plural = rng.choice(DE_SUBJECTS)
        line = f"{subj} {rng.choice(DE_ACTIONS)[plural]}"
        if rng.random() < 0.7:
            line += " " + rng.choice(DE_PLACES)
        de.append(line[0].upper() + line[1:] + rng.choice([".", ".", ".", "!", "?"]))
    return en, de


def train_spm(lines, model_path, vocab_size, rules=None):
    """Unigram SentencePiece, ids pad 0, unk 1, bos 2, eos 3; identity normalization unless `rules`.
    Trained in a temporary dir with relative file names: the model records them, and must not vary."""
    model_path = os.path.abspath(model_path)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            with open("text.txt", "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            kwargs = dict(input="text.txt", model_prefix="m", vocab_size=vocab_size, model_type="unigram",
                          character_coverage=1.0, pad_id=0, unk_id=1, bos_id=2, eos_id=3, num_threads=1,
                          shuffle_input_sentence=False, minloglevel=2)
            if rules:
                with open("rules.tsv", "w") as f:
                    for src, dst in rules:
                        f.write("%04X\t%s\n" % (src, " ".join("%04X" % c for c in dst)))
                kwargs["normalization_rule_tsv"] = "rules.tsv"
            else:
                kwargs["normalization_rule_name"] = "identity"
            spm.SentencePieceTrainer.train(**kwargs)
            shutil.copyfile("m.model", model_path)
        finally:
            os.chdir(cwd)


def spm_pieces(path):
    sp = spm.SentencePieceProcessor(model_file=path)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not (sp.is_control(i) or sp.is_unknown(i))]


def marian_vocab(en_model, de_model, sentences):
    """Joint Marian-style vocab: </s> 0, <unk> 1, pieces (sorted, so ids differ from the spm's), <pad> last.
    Two source pieces used by the test sentences are left out on purpose (they must map to <unk>)."""
    sp = spm.SentencePieceProcessor(model_file=en_model)
    used = []
    for s in sentences:
        used += [p for p in sp.encode(s, out_type=str) if p != "\u2581" and len(p) > 2 and p not in used]
    omit = set(used[1:3])        # never the first sentence's first piece
    pieces = sorted(set(spm_pieces(en_model)) | set(spm_pieces(de_model)))
    vocab = OrderedDict([("</s>", 0), ("<unk>", 1)])
    for p in pieces:
        if p not in omit:
            vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab, sorted(omit)


# ----------------------------------------------------------------------------------------------
# Test sentences (sentence 0 must produce a greedy output of >= 3 tokens)

SENTENCES = [
    "A man in a blue shirt is riding a bicycle down the street.",
    "Hi",
    "Two dogs are playing in the snow.",
    "Several young children are sitting at a wooden table in the park while their mother is reading a book.",
    "The café in Zürich costs 5€ – really?",
    "  A   woman   sings  in the   rain . ",
    "Die Kinder spielen im Wasser.",
]
NORMALIZATION_SENTENCE = "Ａ ﬁne dog…\u00a0runs"   # exercises the joint model's normalization rules
