#!/usr/bin/env python3
"""`nmt models install PAIR|CODE --listing URL` against tests/hub/fake_hub.py: a translateLocally repository
(models.json and .tar.gz packages) and a Remote Settings server (root, translations-models records,
attachments), both built at test time from the Marian SSRU student fixture. Installs by pair and by code
from each, the pair's choice (base over tiny, the newest version; Remote Settings: the newest complete
set, Nightly-only records skipped), a wrong checksum, a missing pair and hostile archives refused with one
line and exit code 4 and nothing installed, and an HTML page translated through the installed student with
its markup kept.

Usage: listing_check.py NMT_BINARY MARIAN_SSRU_FIXTURE
"""
import gzip
import hashlib
import html.parser
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_hub  # noqa: E402
import install_check  # noqa: E402
from install_check import check, fails_cleanly, run, translations, visible  # noqa: E402

FILES = ("model.intgemm.alphas.bin", "vocab.ende.spm", "lex.50.50.ende.s2t.bin")
# A Bergamot package's decoder configuration, as the browsermt students ship it.
PACKAGE_CONFIG = """relative-paths: true
models:
  - model.intgemm.alphas.bin
vocabs:
  - vocab.ende.spm
  - vocab.ende.spm
beam-size: 1
normalize: 1.0
word-penalty: 0
mini-batch: 32
maxi-batch: 100
maxi-batch-sort: src
workspace: 128
max-length-factor: 2.0
skip-cost: true
shortlist:
    - lex.50.50.ende.s2t.bin
    - false
gemm-precision: int8shiftAlphaAll
"""
PAGE = """<!DOCTYPE html>
<html><head><title>A dog</title></head>
<body><h1>A dog runs.</h1>
<p>A man in a <b>blue</b> shirt is riding a <a href="https://example.com/bike">bike</a>.</p>
</body></html>
"""


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def package_dir(ssru, work):
    """The package's folder: the student's files and its config.intgemm8bitalpha.yml."""
    folder = os.path.join(work, "ende.student.base")
    os.makedirs(folder)
    for f in FILES:
        shutil.copy(os.path.join(ssru, f), folder)
    with open(os.path.join(folder, "config.intgemm8bitalpha.yml"), "w") as f:
        f.write(PACKAGE_CONFIG)
    with open(os.path.join(folder, "model_info.json"), "w") as f:
        json.dump({"shortName": "en-de-base", "src": "English", "trg": "German", "type": "base"}, f)
    return folder


def tar_gz(path, folder, extra=()):
    """folder as ende.student.base/..., then `extra` TarInfo members (hostile ones)."""
    with tarfile.open(path, "w:gz") as tar:
        tar.add(folder, arcname="ende.student.base")
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def hostile(name, kind):
    info = tarfile.TarInfo(name)
    if kind == "symlink":
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        return info, None
    info.size = 5
    return info, b"evil\n"


def translatelocally_listing(files, lfs):
    url = f"http://127.0.0.1:{lfs}/files/"

    def entry(code, kind, version, package, checksum=None):
        return {"shortName": code, "modelName": code, "src": "English", "trg": "German",
                "srcTags": {"en": "English"}, "trgTag": "de", "type": kind, "repository": "test", "version": version,
                "API": 1, "url": url + package,
                "checksum": checksum or sha256(os.path.join(files, package))}

    models = [entry("en-de-base-old", "base", 1, "ende-base.tar.gz", "1" * 64),  # older: never chosen
              entry("en-de-tiny", "tiny", 3, "ende-tiny.tar.gz"),  # newer, but tiny
              entry("en-de-base", "base", 2, "ende-base.tar.gz"),
              entry("en-de-badsum", "test", 1, "ende-base.tar.gz", "0" * 64),
              entry("en-de-climb", "test", 1, "ende-climb.tar.gz"),
              entry("en-de-link", "test", 1, "ende-link.tar.gz")]
    with open(os.path.join(files, "models.json"), "w") as f:
        json.dump({"models": models}, f)
    return url + "models.json"


def remote_settings(repos, ssru):
    """_remote_settings/records.json and attachments/: en-de 1.0 (attachments missing), 1.1 (the lex
    gzip-compressed), 2.0a1 for Nightly only; en-fr with a wrong hash."""
    root = os.path.join(repos, "_remote_settings")
    attachments = os.path.join(root, "attachments", "main-workspace", "translations-models")
    os.makedirs(attachments)
    records = []
    kinds = {"model.intgemm.alphas.bin": "model", "vocab.ende.spm": "vocab", "lex.50.50.ende.s2t.bin": "lex"}

    def record(name, pair, version, data, stored, filter_expression="", bad_hash=False):
        location = f"main-workspace/translations-models/{pair}-{version}-{stored}"
        if data is not None:
            with open(os.path.join(root, "attachments", location), "wb") as f:
                f.write(data)
        digest = hashlib.sha256(data or b"").hexdigest()
        records.append({"id": f"{pair}-{version}-{name}", "name": name, "fromLang": pair[:2], "toLang": pair[3:],
                        "version": version, "fileType": kinds.get(name, "qualityModel"), "schema": 1,
                        "filter_expression": filter_expression, "last_modified": 1,
                        "attachment": {"hash": "0" * 64 if bad_hash else digest, "size": len(data or b""),
                                       "filename": stored, "location": location,
                                       "mimetype": "application/octet-stream"}})

    for name in FILES:
        data = open(os.path.join(ssru, name), "rb").read()
        record(name, "en-de", "1.0", None, name)
        if name.startswith("lex."):
            record(name, "en-de", "1.1", gzip.compress(data), name + ".gz")
        else:
            record(name, "en-de", "1.1", data, name)
        record(name, "en-de", "2.0a1", None, name, filter_expression="env.channel == 'nightly'")
        record(name, "en-fr", "1.0", data, name, bad_hash=name == FILES[0])
    record("qe.bin", "en-de", "1.1", b"not read", "qe.bin")
    with open(os.path.join(root, "records.json"), "w") as f:
        json.dump({"data": records}, f)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(attrs)))

    def handle_endtag(self, tag):
        self.tags.append(("/" + tag, ()))

    def handle_data(self, data):
        self.text.append(data.strip())


def well_nested(tags):
    open_tags = []
    for tag, _ in tags:
        if not tag.startswith("/"):
            open_tags.append(tag)
        elif not open_tags or open_tags.pop() != tag[1:]:
            return False
    return not open_tags


def parsed(text):
    p = Tags()
    p.feed(text)
    return p


def html_translates(nmt, env, model_dir, work):
    page = os.path.join(work, "page.html")
    out = os.path.join(work, "page.de.html")
    with open(page, "w") as f:
        f.write(PAGE)
    r = run(nmt, ["translate", "-q", "-m", model_dir, "-i", page, "-o", out], env)
    got = open(out).read() if os.path.exists(out) else ""
    source, target = parsed(PAGE), parsed(got)
    # The student is weak (tests/fixtures/marian-ssru): its alignments may move an inline element, so the
    # markup is compared as a multiset of elements with their attributes, and checked well nested.
    check(r.returncode == 0 and sorted(source.tags) == sorted(target.tags) and well_nested(target.tags),
          f"an HTML page translates through the student with its markup kept: {r.stderr.decode().strip()} {got}")
    check(" ".join(source.text) != " ".join(target.text), "... and its text translated: " + " ".join(target.text))


def translatelocally_installs(nmt, env, home, work, listing, reference):
    r = run(nmt, ["models", "install", "en-de", "--listing", listing], env)
    check(r.returncode == 0 and "en-de-base" in visible(home), "install en-de from models.json: " +
          r.stdout.decode().strip() + r.stderr.decode().strip())
    installed = os.path.join(home, "en-de-base")
    manifest = json.load(open(os.path.join(installed, "install.json"))) if os.path.isdir(installed) else {}
    chosen = manifest.get("listing", {})
    check(chosen.get("code") == "en-de-base" and chosen.get("version") == "2" and chosen.get("url") == listing and
          chosen.get("entry", {}).get("type") == "base",
          f"a pair picks base over tiny, then the newest version; install.json records the listing: {chosen}")
    check(manifest.get("languages") == {"source": "en", "target": "de"}, "the languages come from the listing")
    got = translations(nmt, env, installed)
    check(got == translations(nmt, env, reference) and not got.startswith("failed"),
          "the package translates as nmt convert of its folder (config.intgemm8bitalpha.yml read)")
    html_translates(nmt, env, installed, work)

    r = run(nmt, ["models", "install", "en-de-tiny"], dict(env, NMT_LISTING=listing))
    check(r.returncode == 0 and "en-de-tiny" in visible(home), "install by code, the listing from $NMT_LISTING: " +
          r.stderr.decode().strip())
    fails_cleanly(nmt, env, home, ["en-de-badsum", "--listing", listing], 4,
                  ["en-de-badsum", "checksum", "nothing installed"], "a package with a wrong checksum")
    fails_cleanly(nmt, env, home, ["en-xx", "--listing", listing], 4, ["'en-xx'", "not in the listing", "en-de"],
                  "a pair the listing lacks")
    fails_cleanly(nmt, env, home, ["en-de-climb", "--listing", listing], 4, ["../evil.txt", "outside"],
                  "a package member climbing out with ../")
    fails_cleanly(nmt, env, home, ["en-de-link", "--listing", listing], 4, ["passwd", "a link, device or FIFO"], "a package with a symlink")
    written = [os.path.join(d, f) for d, _, names in os.walk(work) for f in names if f in ("evil.txt", "passwd")]
    check(not written, f"a refused package's hostile members are never written: {written}")
    r = run(nmt, ["models", "list", "--listing", listing], env)
    out = r.stdout.decode()
    check(r.returncode == 0 and "en-de-tiny" in out and "en-de-base" in out and "tiny" in out,
          "models list --listing shows the codes:\n" + out)


def package_url_installs(nmt, env, home, lfs, reference):
    """A translateLocally .tar.gz given by its URL, no listing: installed as its file's name."""
    r = run(nmt, ["models", "install", f"http://127.0.0.1:{lfs}/files/ende-base.tar.gz",
                  "--source-lang", "en", "--target-lang", "de"], env)
    check(r.returncode == 0 and "ende-base" in visible(home),
          "install a .tar.gz package by URL, named after its file: " + r.stderr.decode().strip())
    got = translations(nmt, env, os.path.join(home, "ende-base"))
    check(got == translations(nmt, env, reference) and not got.startswith("failed"),
          "the package by URL translates as nmt convert of its folder")
    # The download's summary line comes first here: the package is refused as it is unpacked.
    before = visible(home)
    r = run(nmt, ["models", "install", f"http://127.0.0.1:{lfs}/files/ende-climb.tar.gz", "--source-lang", "en",
                  "--target-lang", "de"], env)
    last = ([line for line in r.stderr.decode().split("\n") if line] or [""])[-1]
    check(r.returncode == 4 and "../evil.txt" in last and "outside" in last and visible(home) == before,
          "a package by URL with a member climbing out: exit 4, one error line, nothing installed: " + last)


def remote_settings_installs(nmt, env, home, work, lfs):
    server = f"http://127.0.0.1:{lfs}/v1/"
    r = run(nmt, ["models", "install", "en-de", "--listing", server], env)
    check(r.returncode == 0 and "en-de-firefox" in visible(home),
          "install en-de from a Remote Settings server: " + r.stdout.decode().strip() + r.stderr.decode().strip())
    installed = os.path.join(home, "en-de-firefox")
    manifest = json.load(open(os.path.join(installed, "install.json"))) if os.path.isdir(installed) else {}
    chosen = manifest.get("listing", {})
    names = sorted(rec.get("name") for rec in chosen.get("entry", []))
    check(chosen.get("kind") == "remote-settings" and chosen.get("version") == "1.1" and
          names == sorted(FILES), f"the newest complete set, Nightly-only and quality records aside: {chosen}")
    got = translations(nmt, env, installed)
    check(got.strip() and not got.startswith("failed"), "the Firefox model translates: " + got)
    config = json.load(open(os.path.join(installed, "model.json"))) if os.path.isdir(installed) else {}
    check('"beam_size": 1' in json.dumps(config) or config.get("decoding", {}).get("beam_size") == 1,
          "Firefox's settings reach the model (greedy): " + json.dumps(config.get("decoding", config))[:300])
    records = server + "buckets/main/collections/translations-models/records"
    r = run(nmt, ["models", "install", "en-de", "--listing", records, "--name", "rs-records"], env)
    check(r.returncode == 0 and translations(nmt, env, os.path.join(home, "rs-records")) == got,
          "the records URL works as the server's: " + r.stderr.decode().strip())
    fails_cleanly(nmt, env, home, ["en-fr", "--listing", server], 4, ["en-fr", FILES[0], "checksum",
                                                                        "nothing installed"],
                  "an attachment with a wrong hash")
    fails_cleanly(nmt, env, home, ["de-en", "--listing", server], 4, ["'de-en'", "not in the listing", "en-de"],
                  "a pair the records lack")


def main():
    nmt, ssru = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="nmt_listing.") as work:
        repos = os.path.join(work, "repos")
        files = os.path.join(repos, "_files")
        os.makedirs(files)
        folder = package_dir(ssru, work)
        tar_gz(os.path.join(files, "ende-base.tar.gz"), folder)
        tar_gz(os.path.join(files, "ende-tiny.tar.gz"), folder)
        tar_gz(os.path.join(files, "ende-climb.tar.gz"), folder, [hostile("ende.student.base/../../evil.txt", "file")])
        tar_gz(os.path.join(files, "ende-link.tar.gz"), folder, [hostile("ende.student.base/passwd", "symlink")])
        remote_settings(repos, ssru)
        _, lfs, state, servers = fake_hub.start(repos)
        listing = translatelocally_listing(files, lfs)
        home = os.path.join(work, "home")
        env = dict(os.environ, NMT_MODELS_DIR=home, NMT_HUB_STALL_SECONDS="1", NMT_HUB_RETRY_DELAY_MS="20",
                   LC_ALL="C.UTF-8")
        env.pop("NMT_LISTING", None)
        reference = os.path.join(work, "reference")
        r = run(nmt, ["convert", "--from", "marian-npz", folder, "-o", reference, "--dtype", "int8",
                      "--source-lang", "en", "--target-lang", "de"], env)
        check(r.returncode == 0, "nmt convert of the package folder: " + r.stderr.decode().strip())
        twice = os.path.join(work, "two-configs")
        shutil.copytree(folder, twice)
        shutil.copy(os.path.join(twice, "config.intgemm8bitalpha.yml"), os.path.join(twice, "config.bergamot.yml"))
        r = run(nmt, ["convert", "--from", "marian-npz", twice, "-o", os.path.join(work, "never")], env)
        err = r.stderr.decode()
        check(r.returncode == 64 and "config.bergamot.yml" in err and "config.intgemm8bitalpha.yml" in err and
              "decoder.yml" in err, "two package configs and no decoder.yml: a usage error naming both: " + err)
        translatelocally_installs(nmt, env, home, work, listing, reference)
        package_url_installs(nmt, env, home, lfs, reference)
        remote_settings_installs(nmt, env, home, work, lfs)
        check(all(e["server"] != "hub" for e in state.log), "only the listing's hosts are asked")
        for server in servers:
            server.shutdown()
    if install_check.failures:
        print(f"{len(install_check.failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
