"""Self-contained HTML pages of the analysis tools (no server, no network).

Each page is one file: inline CSS and JavaScript, the data embedded as JSON
in a <script type="application/json"> element, figures as data: URIs. The
page reads its state from the URL hash (#layer=2&head=3, #figure=histogram),
so a link opens a given view, and writes what it shows into the DOM
(#state's data attributes), so a headless browser can check it.

  html = attention_page(tokens, probs, layer_ids=[0, 5], head_ids=[0, 1])
  write_page("/tmp/attention.html", html)

Example:
  >>> import numpy as np
  >>> page = attention_page(["[CLS]", "hi", "[SEP]"], np.full((1, 1, 3, 3),
  ...                       1 / 3.0))
  >>> page.startswith("<!DOCTYPE html>") and "http" not in page
  True
"""

import base64
import html
import json

import numpy as np

from tokenization.atomic import atomic_write_text

# Viridis at 5 stops (0, .25, .5, .75, 1): the PNG grids' colour map.
VIRIDIS = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"]

_CSS = """
body { font-family: sans-serif; margin: 1em 2em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
.controls { margin: 0.5em 0 1em; } .controls label { margin-right: 1.5em; }
#errors { color: #b00; white-space: pre-wrap; }
table.matrix { border-collapse: collapse; font-size: 11px; }
table.matrix td { width: 22px; height: 22px; padding: 0; }
table.matrix th { font-weight: normal; padding: 0 4px; white-space: nowrap; }
table.matrix thead th { writing-mode: vertical-rl; transform: rotate(180deg);
  text-align: left; height: 6em; padding: 2px 0; }
table.matrix td:hover { outline: 2px solid #e33; }
.scale { display: flex; align-items: center; gap: 0.5em; margin: 0.8em 0; }
.scale .bar { width: 240px; height: 14px; border: 1px solid #999; }
#hover { min-height: 1.4em; font-family: monospace; }
table.numbers { border-collapse: collapse; font-size: 12px; }
table.numbers td, table.numbers th { border: 1px solid #ccc; padding: 2px 6px;
  text-align: right; }
tr.pass td { background: #e6f4e6; }
img.figure { max-width: 100%; border: 1px solid #ddd; }
.verdict { font-size: 1.15em; font-weight: bold; }
"""

# Shared by both pages: hash parsing, error capture.
_COMMON_JS = """
var errorBox = document.getElementById("errors");
window.addEventListener("error", function (e) {
  errorBox.textContent += "error: " + e.message + "\\n";
});
function readHash() {
  var out = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv.length === 2) { out[decodeURIComponent(kv[0])] =
                             decodeURIComponent(kv[1]); }
  });
  return out;
}
var DATA = JSON.parse(document.getElementById("data").textContent);
"""

_ATTENTION_JS = """
var STOPS = DATA.colours.map(function (h) {
  return [1, 3, 5].map(function (i) { return parseInt(h.substr(i, 2), 16); });
});
function colour(v) {
  var x = Math.min(Math.max(v, 0), 1) * (STOPS.length - 1);
  var i = Math.min(Math.floor(x), STOPS.length - 2), t = x - i;
  var c = STOPS[i].map(function (a, j) {
    return Math.round(a + t * (STOPS[i + 1][j] - a)); });
  return "rgb(" + c.join(",") + ")";
}
var layerSel = document.getElementById("layer");
var headSel = document.getElementById("head");
function fill(select, labels, name) {
  labels.forEach(function (label, i) {
    var o = document.createElement("option");
    o.value = String(i); o.textContent = name + " " + label;
    select.appendChild(o);
  });
}
fill(layerSel, DATA.layers, "layer");
fill(headSel, DATA.heads, "head");
document.getElementById("scalebar").style.background =
  "linear-gradient(to right, " + DATA.colours.join(", ") + ")";
var hoverBox = document.getElementById("hover");
function render(li, hi) {
  var m = DATA.probs[li][hi], tokens = DATA.tokens;
  var table = document.getElementById("matrix");
  table.textContent = "";
  var head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th"));
  tokens.forEach(function (t) {
    var th = document.createElement("th"); th.textContent = t;
    head.appendChild(th);
  });
  var body = table.createTBody();
  m.forEach(function (row, q) {
    var tr = body.insertRow();
    var th = document.createElement("th"); th.textContent = tokens[q];
    tr.appendChild(th);
    row.forEach(function (v, k) {
      var td = tr.insertCell();
      td.style.background = colour(v);
      td.dataset.value = v.toFixed(4);
      td.title = tokens[q] + " -> " + tokens[k] + ": " + v.toFixed(4);
      td.addEventListener("mouseenter", function () {
        hoverBox.textContent = "query " + q + " " + tokens[q] + " -> key " +
          k + " " + tokens[k] + ": " + v.toFixed(4);
      });
    });
  });
  var state = document.getElementById("state");
  state.dataset.layer = String(DATA.layers[li]);
  state.dataset.head = String(DATA.heads[hi]);
  state.dataset.firstRow = m[0].map(function (v) {
    return v.toFixed(4); }).join(" ");
  state.textContent = "layer " + DATA.layers[li] + ", head " + DATA.heads[hi] +
    ": rows are queries, columns keys; each row sums to 1.";
  layerSel.value = String(li); headSel.value = String(hi);
}
function fromHash() {
  var h = readHash();
  var li = DATA.layers.indexOf(parseInt(h.layer, 10));
  var hi = DATA.heads.indexOf(parseInt(h.head, 10));
  render(li < 0 ? 0 : li, hi < 0 ? 0 : hi);
}
function toHash() {
  location.hash = "layer=" + DATA.layers[+layerSel.value] + "&head=" +
    DATA.heads[+headSel.value];
}
layerSel.addEventListener("change", toHash);
headSel.addEventListener("change", toHash);
window.addEventListener("hashchange", fromHash);
fromHash();
"""

_POSITION_JS = """
var figSel = document.getElementById("figure");
DATA.figures.forEach(function (name) {
  var o = document.createElement("option");
  o.value = name; o.textContent = name; figSel.appendChild(o);
});
function show(name) {
  if (DATA.figures.indexOf(name) < 0) { name = DATA.figures[0]; }
  DATA.figures.forEach(function (n) {
    document.getElementById("fig-" + n).style.display =
      n === name ? "block" : "none";
  });
  figSel.value = name;
  var state = document.getElementById("state");
  state.dataset.figure = name;
  state.textContent = "showing " + name;
}
figSel.addEventListener("change", function () {
  location.hash = "figure=" + figSel.value;
});
window.addEventListener("hashchange", function () { show(readHash().figure); });
show(readHash().figure);
"""


def _json_for_script(data):
  """JSON safe inside <script> (no "</" can close the element)."""
  return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def page(title, body, data, script):
  """One self-contained HTML document.

  Args:
    title: str, the page title (escaped here).
    body: str, HTML of the body (already escaped by the caller).
    data: JSON-serialisable object, embedded as #data.
    script: str, JavaScript run after the common helpers (DATA, readHash).

  Returns:
    str, the document.
  """
  return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>%s</title><style>%s</style></head><body>\n%s\n"
          "<div id=\"errors\"></div>\n"
          "<script id=\"data\" type=\"application/json\">%s</script>\n"
          "<script>\n\"use strict\";\n%s\n%s</script>\n</body></html>\n"
          % (html.escape(title), _CSS, body, _json_for_script(data),
             _COMMON_JS, script))


def attention_page(tokens, probs, layer_ids=None, head_ids=None,
                   title="Attention"):
  """The attention page: a layer/head selector and the S x S matrix.

  Args:
    tokens: list of S str.
    probs: float [layers, heads, S, S] (rows: queries, sum to 1).
    layer_ids, head_ids: labels of the layers and heads (default 0..).
    title: str.

  Returns:
    str, the HTML document (open #layer=L&head=H for a given map).
  """
  probs = np.asarray(probs, dtype=np.float64)
  if probs.ndim != 4 or probs.shape[2:] != (len(tokens), len(tokens)):
    raise ValueError("probs must be [layers, heads, %d, %d], got %s"
                     % (len(tokens), len(tokens), probs.shape))
  layer_ids = list(range(probs.shape[0])) if layer_ids is None else layer_ids
  head_ids = list(range(probs.shape[1])) if head_ids is None else head_ids
  data = {"tokens": list(tokens), "layers": [int(i) for i in layer_ids],
          "heads": [int(i) for i in head_ids],
          "probs": np.round(probs, 4).tolist(), "colours": VIRIDIS}
  body = (
      "<h1>%s</h1>\n<p>%d layers x %d heads over %d tokens: %s</p>\n"
      "<div class=\"controls\"><label>Layer <select id=\"layer\"></select>"
      "</label><label>Head <select id=\"head\"></select></label></div>\n"
      "<div class=\"scale\"><span>0</span><div class=\"bar\" id=\"scalebar\">"
      "</div><span>1</span><span>attention weight (query row -&gt; key "
      "column)</span></div>\n<div id=\"state\"></div>\n"
      "<div id=\"hover\"></div>\n<table class=\"matrix\" id=\"matrix\">"
      "</table>" % (html.escape(title), len(layer_ids), len(head_ids),
                    len(tokens), html.escape(" ".join(tokens))))
  return page(title, body, data, _ATTENTION_JS)


def png_data_uri(path):
  """data:image/png;base64,... of a PNG file."""
  with open(path, "rb") as f:
    return "data:image/png;base64," + base64.b64encode(f.read()).decode()


def position_page(report, figure_paths, title="Position embeddings"):
  """The position page: the verdict, its per-offset table, every figure.

  Args:
    report: dict from position_report.analyze_position_table.
    figure_paths: {name: PNG path}, shown one at a time (#figure=name).
    title: str.

  Returns:
    str, the HTML document.
  """
  from bert_research.analysis import relative_position  # pylint: disable=g-import-not-at-top
  rel = report["relative_position"]
  rows = []
  for i in range(rel["max_offset"]):
    cells = "".join(
        "<td>%s</td>" % ("-" if rel[key][i] is None else "%.3f" % rel[key][i])
        for key in relative_position.PER_OFFSET)
    rows.append("<tr%s><td>%d</td>%s</tr>" % (
        " class=\"pass\"" if i + 1 in rel["passing"] else "", i + 1, cells))
  names = sorted(figure_paths)
  figures = "\n".join(
      "<div id=\"fig-%s\" style=\"display:none\"><img class=\"figure\" "
      "alt=\"%s\" src=\"%s\"></div>" % (n, n, png_data_uri(figure_paths[n]))
      for n in names)
  src = report.get("source") or {}
  body = (
      "<h1>%s</h1>\n<p>%s, %d positions x %d dimensions (positions %d.. in "
      "the verdict).</p>\n<p class=\"verdict\">Relative position: %s</p>\n"
      "<p>An offset k passes when the near half's mean cos(p[i], p[i+k]) "
      "predicts the far half's (positions from %d) with a score &gt;= %g "
      "against the better of \"no move\" and \"offset blind\" "
      "(docs/analysis.md).</p>\n"
      "<div class=\"controls\"><label>Figure <select id=\"figure\"></select>"
      "</label></div><div id=\"state\"></div>\n%s\n<h2>Per offset</h2>\n"
      "<table class=\"numbers\"><tr><th>offset</th><th>transfer score</th>"
      "<th>near cos</th><th>far cos</th><th>far cos spread</th>"
      "</tr>%s</table>" % (
          html.escape(title), html.escape(str(src.get("checkpoint", "table"))),
          report["num_positions"], report["hidden_size"],
          rel["first_position"],
          html.escape(relative_position.verdict_text(rel)),
          rel["first_position"] + rel["split_position"],
          rel["thresholds"]["transfer_min"], figures,
          "".join(rows)))
  return page(title, body, {"figures": names,
                            "relative_position": rel}, _POSITION_JS)


def write_page(path, text):
  """Writes an HTML page atomically."""
  atomic_write_text(path, text)
