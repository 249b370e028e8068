"""GET / in headless Chromium: the page loads the pairs, translates the text of its query string and draws
the attention heatmap (`/?q=...&run=1` runs both, as clicking Translate and Attention does). Skipped, with
the reason, when chromium is not installed. With --screenshot PATH, also saves a PNG of the page."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

from serve_support import SENTENCES, Server, check, cli_translate

ap = argparse.ArgumentParser()
ap.add_argument("nmt")
ap.add_argument("--skip-marker", default="nmt-test-skipped:")
ap.add_argument("--screenshot", default=None)
a = ap.parse_args()

chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print(a.skip_marker, "chromium is not installed (apt-get install chromium): the page is not tested")
    sys.exit(0)

text = SENTENCES[4] + " " + SENTENCES[1]
expected = cli_translate(a.nmt, [text])[0]
with Server(a.nmt) as s, tempfile.TemporaryDirectory() as profile:
    url = s.url + "/?" + urllib.parse.urlencode({"q": text, "run": "1"})
    browser = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
               "--virtual-time-budget=20000", "--window-size=1200,1000"]
    dom = subprocess.run(browser + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    check('data-translated="1"' in dom, "the page translated its text")
    check(expected in dom, f"the page shows the CLI's translation: {expected}")
    check('data-heatmap="1"' in dom and "<svg" in dom and "Cross-attention" in dom, "the page drew the heatmap")
    if a.screenshot:
        os.makedirs(os.path.dirname(os.path.abspath(a.screenshot)), exist_ok=True)
        subprocess.run(browser + ["--screenshot=" + os.path.abspath(a.screenshot), url], capture_output=True,
                       timeout=120)
        check(os.path.getsize(a.screenshot) > 10000, f"screenshot saved: {a.screenshot}")
    s.stop()
print("all passed")
