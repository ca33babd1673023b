"""The HTML pages in a real headless browser (Chromium).

Each page renders without console messages (errors included) or caught
errors, its layer/head or figure selector changes what is shown (read back
from the DOM the page's script writes), and a screenshot is not blank.
"""

import html
import os
import re

import numpy as np
import pytest

from bert_research.analysis import html_pages
from bert_research.analysis import position_report
from tests.research.analysis import browser
from tests.research.analysis import synthetic

pytestmark = pytest.mark.browser
TOKENS = ["[CLS]", "the", "cat", "</script>", "[SEP]"]


def _probs():
  # Distinct maps: a Dirichlet draw per (layer, head).
  return np.random.RandomState(0).dirichlet(np.ones(5), size=(2, 3, 5))


def _state(dom):
  """The data-* attributes of the page's #state element."""
  tag = re.search(r'<div id="state"([^>]*)>', dom)
  assert tag, dom[-2000:]
  return {k: html.unescape(v) for k, v in
          re.findall(r'data-([\w-]+)="([^"]*)"', tag.group(1))}


def _errors(dom):
  return re.search(r'<div id="errors">(.*?)</div>', dom, re.S).group(1)


def _first_row(probs, layer, head):
  return " ".join("%.4f" % v for v in np.round(probs[layer, head, 0], 4))


@pytest.fixture(scope="module")
def attention_file(tmp_path_factory):
  path = str(tmp_path_factory.mktemp("html") / "attention.html")
  html_pages.write_page(path, html_pages.attention_page(
      TOKENS, _probs(), layer_ids=[0, 5], head_ids=[0, 1, 7]))
  return path


@pytest.mark.parametrize("layer, head, li, hi", [(0, 0, 0, 0), (5, 7, 1, 2),
                                                 (5, 1, 1, 1)])
def test_attention_page_shows_the_map_the_hash_names(attention_file,
                                                     tmp_path, layer, head,
                                                     li, hi):
  dom, console = browser.load(
      "file://%s#layer=%d&head=%d" % (attention_file, layer, head),
      str(tmp_path))
  assert console == []
  assert _errors(dom) == ""
  state = _state(dom)
  assert (state["layer"], state["head"]) == (str(layer), str(head))
  assert state["first-row"] == _first_row(_probs(), li, hi)
  assert dom.count("<td ") == len(TOKENS) ** 2
  assert "&lt;/script&gt;" in dom  # A token is text, never markup.


def test_attention_selector_changes_the_map(attention_file, tmp_path):
  # A wrapper page drives the real <select> of the page in an iframe:
  # choose layer 5, fire "change", and copy the page's state out.
  wrapper = tmp_path / "drive.html"
  wrapper.write_text(
      "<!DOCTYPE html><html><body><div id=\"out\"></div>"
      "<iframe id=\"f\" src=\"file://%s#layer=0&amp;head=1\"></iframe>"
      "<script>\n"
      "var f = document.getElementById('f');\n"
      "f.onload = function () {\n"
      "  var d = f.contentDocument, before = d.getElementById('state')"
      ".dataset.firstRow;\n"
      "  var s = d.getElementById('layer'); s.value = '1';\n"
      "  s.dispatchEvent(new Event('change'));\n"
      "  setTimeout(function () {\n"
      "    var st = d.getElementById('state').dataset;\n"
      "    document.getElementById('out').textContent = [before, st.layer,"
      " st.head, st.firstRow, f.contentWindow.location.hash].join('|');\n"
      "  }, 300);\n};\n</script></body></html>" % attention_file)
  dom, console = browser.load("file://%s" % wrapper, str(tmp_path))
  assert console == []
  out = re.search(r'<div id="out">(.*?)</div>', dom).group(1).split("|")
  assert out == [_first_row(_probs(), 0, 1), "5", "1",
                 _first_row(_probs(), 1, 1), "#layer=5&amp;head=1"], out


def _pixel_spread(path):
  import matplotlib.image  # pylint: disable=g-import-not-at-top
  pixels = matplotlib.image.imread(path)[..., :3]
  return float(pixels.std()), len(np.unique(
      (pixels * 255).astype(int).reshape(-1, 3), axis=0))


def test_attention_page_screenshot_is_not_blank(attention_file, tmp_path):
  shot = str(tmp_path / "attention.png")
  browser.screenshot("file://%s#layer=5&head=7" % attention_file, shot,
                     str(tmp_path))
  spread, colours = _pixel_spread(shot)
  assert spread > 0.05 and colours > 20, (spread, colours)


@pytest.fixture(scope="module")
def position_dir(tmp_path_factory):
  out = str(tmp_path_factory.mktemp("positions"))
  position_report.analyze_position_table(synthetic.sinusoidal_table(48, 16),
                                         out, num_components=4,
                                         max_pairs=500)
  return out


@pytest.mark.parametrize("figure", sorted(position_report.FIGURES))
def test_position_page_shows_each_figure(position_dir, tmp_path, figure):
  page = os.path.join(position_dir, position_report.HTML_FILE)
  dom, console = browser.load("file://%s#figure=%s" % (page, figure),
                              str(tmp_path))
  assert console == []
  assert _errors(dom) == ""
  assert _state(dom) == {"figure": figure}
  shown = re.findall(r'<div id="fig-(\w+)" style="display: block;?">', dom)
  assert shown == [figure], shown
  assert "Relative position: yes (offsets 1..11 tested)" in dom


def test_position_page_screenshot_is_not_blank(position_dir, tmp_path):
  page = os.path.join(position_dir, position_report.HTML_FILE)
  shot = str(tmp_path / "positions.png")
  browser.screenshot("file://%s#figure=relative_position" % page, shot,
                     str(tmp_path))
  spread, colours = _pixel_spread(shot)
  assert spread > 0.05 and colours > 20, (spread, colours)
