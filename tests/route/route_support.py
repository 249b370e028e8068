"""Installs relabelled fixture models into a temporary models home (NMT_MODELS_DIR), as `nmt models install`
would leave them: a checkpoint directory whose model.json names the pair. Never the real home."""
import json
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OPUS = os.path.join(ROOT, "tests", "fixtures", "opus", "model")  # tiny: its translations are nonsense
MULTI30K = os.path.join(ROOT, "data", "multi30k-en-de")
GENERAL = os.path.join(ROOT, "data", "general-en-de")


def install(home, name, checkpoint, source, target):
    """Links `checkpoint`'s files into HOME/NAME (model.json copied, relabelled source -> target)."""
    directory = os.path.join(home, name)
    os.makedirs(directory)
    for entry in os.listdir(checkpoint):
        path = os.path.join(checkpoint, entry)
        if entry == "model.json" or not os.path.isfile(path):
            continue
        os.symlink(os.path.abspath(path), os.path.join(directory, entry))
    with open(os.path.join(checkpoint, "model.json")) as f:
        description = json.load(f)
    description["source_lang"], description["target_lang"] = source, target
    with open(os.path.join(directory, "model.json"), "w") as f:
        json.dump(description, f)
    return directory


def environment(home):
    """The environment of a command that must see only HOME's models (and the bundled ones)."""
    env = dict(os.environ, NMT_MODELS_DIR=home)
    env.pop("NMT_MODEL", None)
    return env
