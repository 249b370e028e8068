"""LibreTranslate's own web page (its templates/index.html, templates/app.js.template and static/, from a
LibreTranslate checkout named by $NMT_LIBRETRANSLATE_SRC) against `nmt serve`, in headless Chromium. The
test renders the two templates as LibreTranslate's Flask app does (jinja2) and serves them on a loopback
port that passes every other path to the server unchanged, so the page's own code calls nmt's API from its
own origin. A script added to the page plays the user: the page translates the text of its query string
(?source=en&target=de&q=...), then with "Auto Detect", then uploads a file and takes its download. Checks
the languages it drew, both translations, the detected language and the downloaded file against the
server's answers. Skipped, with the reason, without chromium, jinja2 or the checkout (its files are not part
of nmt: `git clone https://github.com/LibreTranslate/LibreTranslate` and point the variable at it)."""
import argparse
import html
import http.client
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

from serve_support import SENTENCES, Server, check, cli_translate

ap = argparse.ArgumentParser()
ap.add_argument("nmt")
ap.add_argument("--skip-marker", default="nmt-test-skipped:")
a = ap.parse_args()


def skip(reason):
    print(a.skip_marker, reason)
    sys.exit(0)


chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    skip("chromium is not installed (apt-get install chromium): LibreTranslate's page is not tested")
try:
    import jinja2
    import markupsafe
except ImportError:
    skip("python's jinja2 is not installed (apt-get install python3-jinja2): LibreTranslate's page is not rendered")
source = os.environ.get("NMT_LIBRETRANSLATE_SRC", "")
package = os.path.join(source, "libretranslate")
if not source or not os.path.isfile(os.path.join(package, "templates", "index.html")):
    skip("no LibreTranslate checkout in $NMT_LIBRETRANSLATE_SRC: LibreTranslate's page is not tested")

# Plays the user once the page has loaded its settings and languages; results go into data- attributes of
# <body>, which --dump-dom prints.
DRIVER = """<script>
(function () {
  function put(name, value) { document.body.setAttribute('data-nmt-' + name, value); }
  function until(done, then) {
    var tries = 0;
    (function poll() {
      if (done()) return then();
      if (++tries > 400) return put('stuck', 'yes');
      setTimeout(poll, 50);
    })();
  }
  // The page "downloads" the translated file by clicking a link: fetched here instead, as the browser would.
  HTMLAnchorElement.prototype.click = function () {
    var href = this.href;
    fetch(href).then(function (r) {
      put('download-disposition', r.headers.get('Content-Disposition') || '');
      return r.text();
    }).then(function (text) { put('download', text); });
  };
  window.Notification = function () {};
  window.Notification.requestPermission = function () { return Promise.resolve('denied'); };
  window.addEventListener('load', function () {
    until(function () { return window._vueApp && !window._vueApp.loading; }, function () {
      var app = window._vueApp;
      put('error-on-load', app.error);
      put('langs', app.langs.map(function (l) { return l.code + ':' + l.targets.join(','); }).join(' '));
      until(function () { return app.translatedText !== '' && !app.loadingTranslation; }, function () {
        put('translated', app.translatedText);
        app.sourceLang = 'auto';
        app.translatedText = '';
        app.handleInput(new Event('input'));
        until(function () { return app.translatedText !== '' && !app.loadingTranslation; }, function () {
          put('auto-translated', app.translatedText);
          put('detected', app.detectedLangText);
          app.sourceLang = 'en';
          app.translationType = 'files';
          app.inputFile = new File([FILE_TEXT], 'note.txt', {type: 'text/plain'});
          app.translateFile(new Event('submit'));
          until(function () { return document.body.hasAttribute('data-nmt-download') || app.error; },
                function () { put('error', app.error); put('done', 'yes'); });
        });
      });
    });
  });
})();
</script>"""


def render(text, file_text):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(package, "templates")),
                             autoescape=jinja2.select_autoescape(["html"]))

    def gettext(s, **kw):
        return s % kw if kw else s

    env.globals.update(
        _=gettext,
        _e=lambda s, **kw: markupsafe.Markup(json.dumps(gettext(s, **kw))),
        _h=lambda s, **kw: markupsafe.Markup(gettext(s, **kw)),
        url_for=lambda endpoint, filename="": "/static/" + filename if endpoint == "static" else "/")
    index = env.get_template("index.html").render(
        frontendTimeout=500, api_keys=False, get_api_key_link="", web_version=False, version="nmt-test",
        swagger_url="/spec", available_locales=[{"code": "en", "name": "English"}], current_locale="en",
        alternate_locales=[], under_attack=False, hide_api=False, frontend_title="")
    index = index.replace("</body>", DRIVER.replace("FILE_TEXT", json.dumps(file_text)) + "</body>")
    app_js = env.get_template("app.js.template").render(url_prefix="", get_api_key_link="", api_secret="",
                                                        bogus_api_secret="", under_attack=False)
    return index.encode(), app_js.encode()


def page_server(index, app_js, api_host, api_port):
    """A loopback server with LibreTranslate's page at / (and its js/app.js and static/); every other path
    goes to nmt serve as sent, Host header included, so URLs the server builds point back here."""
    static = os.path.realpath(os.path.join(package, "static"))

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body, headers):
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def local(self):
            path = urllib.parse.urlparse(self.path).path
            if path == "/":
                return self.send(200, index, [("Content-Type", "text/html; charset=utf-8")]) or True
            if path == "/js/app.js":
                return self.send(200, app_js, [("Content-Type", "application/javascript")]) or True
            if path.startswith("/static/"):
                file = os.path.realpath(os.path.join(static, path[len("/static/"):]))
                if file.startswith(static + os.sep) and os.path.isfile(file):
                    with open(file, "rb") as f:
                        return self.send(200, f.read(), []) or True
            return False

        def forward(self):
            if self.command == "GET" and self.local():
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            connection = http.client.HTTPConnection(api_host, api_port, timeout=60)
            connection.request(self.command, self.path, body=body, headers=dict(self.headers.items()))
            response = connection.getresponse()
            self.send(response.status, response.read(), response.getheaders())
            connection.close()

        do_GET = do_POST = do_OPTIONS = forward

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


text = SENTENCES[10]  # long enough (20 letters) for CLD2 to measure its confidence
file_text = SENTENCES[2] + "\n" + SENTENCES[3] + "\n"
index, app_js = render(text, file_text)
with Server(a.nmt) as s, tempfile.TemporaryDirectory() as profile:
    page = page_server(index, app_js, s.host, s.port)
    url = f"http://127.0.0.1:{page.server_address[1]}/?" + urllib.parse.urlencode(
        {"source": "en", "target": "de", "q": text})
    browser = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
               "--virtual-time-budget=30000", "--window-size=1200,1000"]
    dom = subprocess.run(browser + ["--dump-dom", url], capture_output=True, text=True, timeout=180).stdout
    page.shutdown()
    body = re.search(r"<body([^>]*)>", dom)
    found = {k: html.unescape(v) for k, v in re.findall(r'data-nmt-([a-z-]+)="([^"]*)"', body.group(1))} \
        if body else {}
    print("page:", json.dumps(found, ensure_ascii=False))
    check(found.get("done") == "yes", "LibreTranslate's page went through translate, detect and file upload")
    check(found.get("error-on-load") == "", "the page loaded /frontend/settings and /languages without an error")
    check("en:de" in found.get("langs", "").split() and "de:" in found.get("langs", "").split(),
          f"the page drew the languages: {found.get('langs')}")
    # The page asks for 3 alternatives, as a form: the server's answer to the same request.
    fields = {"q": text, "source": "en", "target": "de", "format": "text", "alternatives": "3", "api_key": ""}
    want = s.post("/translate", files={k: (None, v) for k, v in fields.items()}).json()["translatedText"]
    check(found.get("translated") == want, f"the page shows the server's translation: {want}")
    check(found.get("auto-translated") == want and re.fullmatch(r": English \(([1-9]\d*)%\)", found.get("detected", "")),
          f"Auto Detect: English detected ({found.get('detected')}) and the same translation")
    expected_file = "\n".join(cli_translate(a.nmt, file_text.splitlines())) + "\n"
    check(found.get("download") == expected_file, f"the uploaded file came back translated as the CLI does")
    check('note.de.txt' in found.get("download-disposition", ""),
          f"the download is named note.de.txt: {found.get('download-disposition')}")
    check(found.get("error") == "", f"no error shown: {found.get('error')!r}")
    status, err = s.stop()
    check(status == 0, f"exit {status}")
print("all passed")
