"""docs/architecture.md's `includes` block against the code, both ways: every #include of one library's
folder into another's is an edge the block lists, and every edge the block lists is used, so the picture
neither hides nor invents a dependency. Also holds the folders the document names as CLI11's only users
("Only `a/` and `b/` use CLI11") to the files that include <CLI/CLI.hpp>: its header costs every file that
includes it seconds of a first build. Usage: architecture_check.py REPOSITORY_ROOT"""
import collections
import os
import re
import subprocess
import sys

root = sys.argv[1]
doc = open(os.path.join(root, "docs/architecture.md"), encoding="utf-8").read()
block = re.search(r"```includes\n(.*?)```", doc, re.S)
if not block:
    sys.exit("docs/architecture.md: no ```includes block")
allowed = {}
for line in block.group(1).splitlines():
    source, _, targets = line.partition("->")
    allowed[source.strip().rstrip("/")] = {t.rstrip("/") for t in targets.split()}
cli11_sentence = re.search(r"Only ((?:`[^`]+/` (?:and )?)+)use CLI11", doc)
if not cli11_sentence:
    sys.exit("docs/architecture.md: no sentence 'Only `FOLDER/` ... use CLI11'")
cli11_homes = tuple(re.findall(r"`([^`]+/)`", cli11_sentence.group(1)))


def library_of(path):
    """The library a path belongs to: its top folder, or a listed subfolder (models/convert, models/hub);
    "nmt/..." is include/'s (the installed headers are included by that name)."""
    if path.startswith("nmt/"):
        path = "include/" + path
    nested = "/".join(path.split("/", 2)[:2])
    if nested in allowed and path.count("/") >= 2:
        return nested
    top = path.split("/", 1)[0]
    return top if top in allowed else None


files = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h", "*.inl"], capture_output=True, text=True,
                       check=True).stdout.split()
used = collections.defaultdict(set)
failures = []
for path in files:
    source = library_of(path)
    if source is None:
        continue  # tests, tools, fuzzers: not a library
    text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
    if re.search(r"^\s*#\s*include\s+<CLI/", text, re.M) and not path.startswith(cli11_homes):
        failures.append(f"{path}: includes CLI11, which only {' and '.join(cli11_homes)} may "
                        "(name its classes through front/cli11_fwd.h)")
    for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        target = library_of(included)
        if target is None or target == source:
            continue
        used[source].add(target)
        if target not in allowed[source]:
            failures.append(f"{path}: includes {included}, but {source}/ may include only "
                            f"{' '.join(sorted(allowed[source])) or 'nothing'}")
for source, targets in allowed.items():
    for target in sorted(targets - used[source]):
        failures.append(f"docs/architecture.md: {source}/ -> {target}/ is listed but nothing includes it")
for f in failures:
    print(f)
print(f"{len(files)} files, {sum(len(t) for t in used.values())} library edges, {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
