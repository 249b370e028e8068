#include "serve/page.h"

namespace serve {

namespace {

// The page's script fills the pair list from GET /languages and calls POST /translate and
// POST /v1/attention; the SVG is the server's own (cli/io/svg_heatmap.h escapes every label).
const char* const kPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nmt serve</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 60em; padding: 0 1em; color: #222; }
h1 { font-size: 1.3em; }
.row { display: flex; gap: 1em; }
.row > div { flex: 1; }
textarea, #result { width: 100%; min-height: 8em; box-sizing: border-box; font: inherit; padding: .5em;
  border: 1px solid #aaa; border-radius: 4px; }
#result { background: #f6f6f6; white-space: pre-wrap; }
button, select { font: inherit; padding: .3em .8em; }
#status { color: #a00; min-height: 1.2em; }
#heatmap svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>nmt serve</h1>
<p><label>Pair <select id="pair"></select></label>
<button id="translate">Translate</button>
<button id="attention">Attention of the first sentence</button></p>
<div class="row">
<div><textarea id="source" placeholder="Text to translate"></textarea></div>
<div><div id="result" aria-live="polite"></div></div>
</div>
<p id="status"></p>
<div id="heatmap"></div>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
function pair() { const [source, target] = $("pair").value.split("|"); return { source, target }; }
async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                  body: JSON.stringify(body) });
  if (!res.ok) { const e = await res.json().catch(() => ({ error: res.statusText })); throw new Error(e.error); }
  return res;
}
async function translate() {
  $("status").textContent = "";
  try {
    const res = await post("/translate", { q: $("source").value, ...pair(), format: "text" });
    $("result").textContent = (await res.json()).translatedText;
    document.body.dataset.translated = "1";
  } catch (e) { $("status").textContent = e.message; }
}
async function attention() {
  $("status").textContent = "";
  const first = $("source").value.split(/(?<=[.!?])\s/)[0];
  try {
    const res = await post("/v1/attention", { q: first, ...pair() });
    $("heatmap").innerHTML = await res.text();
    document.body.dataset.heatmap = "1";
  } catch (e) { $("status").textContent = e.message; }
}
async function start() {
  const languages = await (await fetch("/languages")).json();
  const names = Object.fromEntries(languages.map((l) => [l.code, l.name]));
  for (const l of languages) for (const t of l.targets) {
    const o = document.createElement("option");
    o.value = l.code + "|" + t; o.textContent = l.name + " \u2192 " + (names[t] || t);
    $("pair").appendChild(o);
  }
  $("translate").onclick = translate;
  $("attention").onclick = attention;
  const query = new URLSearchParams(location.search);
  if (query.has("q")) $("source").value = query.get("q");
  if (query.get("run") === "1") { await translate(); await attention(); }
}
start();
</script>
</body>
</html>
)HTML";

}  // namespace

const std::string& page_html() {
  static const std::string page = kPage;
  return page;
}

}  // namespace serve
