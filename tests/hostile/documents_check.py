#!/usr/bin/python3
"""Hostile documents through `nmt translate` (tests/hostile/make_documents.py writes them), each under the
default stack limit and an address-space limit: no run ends by a signal; a document past a bound fails
alone with one line naming it (exit 1, no output file) or is kept as it is with a warning; directory mode
counts those files failed, translates the rest, leaves no temp file and resumes.
Usage: documents_check.py [--sanitized] NMT MODEL (--sanitized: an ASan build, which reserves terabytes of
address space for its shadow and keeps freed memory in quarantine, so neither limit nor peak RSS applies;
every exit code and message is still checked)."""
import html.parser
import os
import re
import resource
import subprocess
import sys
import tempfile

SANITIZED = '--sanitized' in sys.argv[1:]
NMT, MODEL = [a for a in sys.argv[1:] if a != '--sanitized'][:2]
HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT_AS = 3 << 30  # bytes of address space
DEEP = 'elements nested deeper than 1000 levels'

# name: (exit code, a pattern each stderr line must match in order, or None for a clean run)
EXPECTED = {
    'deep_span.html': (1, [r'nmt: error: {}:1: ' + DEEP]),
    'deep_div.html': (1, [r'nmt: error: {}:1: ' + DEEP]),
    'deep.xml': (1, [r'nmt: error: {}:1: ' + DEEP]),
    'deep_quote.md': (0, []),
    'deep_list.md': (0, []),
    'deep_html_block.md': (0, [r'nmt: warning: {}:2: ' + DEEP + '; kept as it is']),
    'long_url.md': (0, []),
    'long_number.md': (0, []),
    'quote.html': (0, []),
    'deep.docx': (0, [r'nmt: warning: {}:word/document.xml:1: ' + DEEP + '; kept as it is']),
    'deep.odt': (0, [r'nmt: warning: {}:content.xml:1: ' + DEEP + '; kept as it is']),
    'deep.epub': (0, [r'nmt: warning: {}:OEBPS/c1.xhtml:1: ' + DEEP + '; OEBPS/c1.xhtml kept as it is']),
    'inflating.docx': (1, [r'nmt: error: {}: word/document.xml: declares 200.0 MiB inflated, more than the '
                           r'64.0 MiB this package may still inflate to']),
    'understated.docx': (1, [r'nmt: error: {}: word/document.xml: inflates to more than the 10000 bytes '
                             r'it declares']),
    'lying.docx': (1, [r'nmt: error: {}: word/document.xml: declares 1812.0 MiB inflated, more than the '
                       r'64.0 MiB this package may still inflate to']),
    'many_members.docx': (1, [r'nmt: error: {}: 25002 members, more than the 20000 a package may hold']),
}
MAX_RSS_MB = 400  # a refused package never inflates what it claims
# Each file; a walk over the open elements per tag took 100 s on 50000 nested spans. A Debug ASan build
# runs many times slower.
SECONDS = 240 if SANITIZED else 30


def limits():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(args):
    """(exit code, stderr lines, peak RSS in MB) of nmt with `args`; a signal is a negative code, a
    timeout 124."""
    child = subprocess.Popen(['timeout', str(SECONDS), NMT] + args, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=limits)
    err = child.stderr.read().decode(errors='replace')
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, err.splitlines(), usage.ru_maxrss // 1024


class Attributes(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.names = []

    def handle_starttag(self, tag, attrs):
        self.names += [name for name, _ in attrs]


def main():
    failed = []
    work = tempfile.mkdtemp()
    src = os.path.join(work, 'in')
    env = dict(os.environ, INFLATE_MB='200')
    subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'make_documents.py'), src], check=True, env=env)
    assert sorted(os.listdir(src)) == sorted(EXPECTED), sorted(os.listdir(src))
    common = ['translate', '-m', MODEL, '--threads', '1', '--max-memory', '512M']
    for name, (code, patterns) in sorted(EXPECTED.items()):
        path, out = os.path.join(src, name), os.path.join(work, 'out-' + name)
        got, lines, rss = run(common + ['-i', path, '-o', out])
        wanted = [re.escape(path).join(p.split('{}')) if '{}' in p else p for p in patterns]
        lines = [line for line in lines if 'the translation lacks the number' not in line]
        ok = got == code and len(lines) == len(wanted) and all(re.fullmatch(w, l) for w, l in zip(wanted, lines))
        ok = ok and os.path.exists(out) == (code == 0) and (SANITIZED or rss <= MAX_RSS_MB)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {got}, peak RSS {rss} MB: {' | '.join(lines)[:300]}")
        if not ok:
            failed.append(name)
    parser = Attributes()
    parser.feed(open(os.path.join(work, 'out-quote.html'), encoding='utf-8').read())
    if parser.names != ['src', 'alt']:
        failed.append(f'quote.html: attributes {parser.names}')

    # Directory mode: the failing files fail alone, the rest are translated, no temp file stays; a rerun
    # resumes without dying on them.
    with open(os.path.join(src, 'good.html'), 'w') as f:
        f.write('<p>A dog runs.</p>\n')
    dst = os.path.join(work, 'tree')
    failing = sum(1 for code, _ in EXPECTED.values() if code != 0)
    for attempt, done in (('first', f'{len(EXPECTED) + 1 - failing} file(s) translated, 0 already done'),
                          ('rerun', f'0 file(s) translated, {len(EXPECTED) + 1 - failing} already done')):
        got, lines, _ = run(common + ['--input-dir', src, '--output-dir', dst])
        summary = [line for line in lines if line.startswith('nmt: ') and 'file(s) translated' in line]
        leftovers = [n for _, _, files in os.walk(dst) for n in files if n.endswith('.tmp') or '.tmp' in n]
        ok = got == 1 and summary and done in summary[0] and f'{failing} failed' in summary[0] and not leftovers
        print(f"{'ok  ' if ok else 'FAIL'} directory mode, {attempt}: exit {got}: {summary} {leftovers}")
        if not ok:
            failed.append('directory mode ' + attempt)
    if failed:
        print('FAILED:', ', '.join(failed))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
