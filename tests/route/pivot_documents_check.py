"""Documents through a pivot keep their markup: tests/documents_check.py's properties on
`nmt translate --from fr --to de` with fr-en and en-de installed (markup projected through the alignments
composed over both legs; each block's words those of the plain-text pivot).

Usage: pivot_documents_check.py NMT_BINARY DOCUMENTS_CHECK FIXTURE..."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from route_support import MULTI30K, OPUS, environment, install  # noqa: E402

nmt, documents_check, fixtures = sys.argv[1], sys.argv[2], sys.argv[3:]
with tempfile.TemporaryDirectory() as home:
    install(home, "opus-mt-fr-en", OPUS, "fr", "en")
    install(home, "opus-mt-en-de", MULTI30K, "en", "de")
    run = subprocess.run([sys.executable, documents_check, nmt, "route:fr:de", *fixtures], env=environment(home),
                         timeout=240)
sys.exit(run.returncode)
