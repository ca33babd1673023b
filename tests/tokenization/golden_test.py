"""Parity with Google's original FullTokenizer (run in one subprocess).

One golden run tokenizes, with the original code:
  * a real multilingual corpus of 0.5 M characters (tests/tokenization/
    corpus.py: English, Chinese and 32 Faker locales) with the real
    all-MiniLM-L6-v2 uncased vocabulary, lower-cased, and every third line
    of it (~0.17 M characters) cased;
  * hand-picked hard strings and seeded random Unicode, including with
    --preserve_unused_tokens;
  * random bytes (mostly invalid UTF-8) given as `bytes`;
  * a vocabulary file with duplicates, blank lines, CRs and a BOM (ids).
Every result must be identical, token for token, for our fast path, our
reference path and (on the corpus) the in-graph tokenizer.
"""

import base64
import json

import pytest

import tokenization
from tests.golden import run_golden
from tests.golden.compare import paired
from tests.tokenization import adversarial
from tests.tokenization import corpus

pytestmark = pytest.mark.golden

WEIRD_VOCAB = (
    b"[PAD]\n[UNK]\nhello\n\n  \nworld\r\nhello\nfoo\rbar\n\xef\xbb\xbfbom\n"
    b"\xe3\x80\x80wide\xe3\x80\x80\n##s\n[UNK]\nlast")


@pytest.fixture(scope="module")
def golden(tmp_path_factory, minilm_vocab):
  tmp = tmp_path_factory.mktemp("tokenization_golden")
  lines = corpus.build_corpus(500_000)
  inputs = {
      # Uncased (the MiniLM vocab's casing) on all of it; cased on every
      # third line (all sources, ~0.17 M characters) to keep the run short.
      "corpus": lines,
      "corpus_cased": lines[::3],
      "hard": list(adversarial.HAND_PICKED) + adversarial.random_texts(
          1500, seed=1),
      "bytes": adversarial.random_bytes(300, seed=2) + [
          t.encode("utf-8", "surrogatepass") for t in adversarial.HAND_PICKED],
  }
  weird_vocab = tmp / "weird_vocab.txt"
  weird_vocab.write_bytes(WEIRD_VOCAB)
  files = {}
  for name, texts in inputs.items():
    files[name] = str(tmp / (name + ".json"))
    with open(files[name], "w") as f:
      json.dump([{"b64": base64.b64encode(t).decode()}
                 if isinstance(t, bytes) else t for t in texts], f)
  runs = []
  for name in inputs:
    for lower in (True, False):
      if name.startswith("corpus") and lower != (name == "corpus"):
        continue
      runs.append({"key": (name, lower, False), "vocab_file": minilm_vocab,
                   "do_lower_case": lower, "texts_file": files[name]})
  runs.append({"key": ("hard", True, True), "vocab_file": minilm_vocab,
               "do_lower_case": True, "preserve_unused_tokens": True,
               "texts_file": files["hard"]})
  runs.append({"key": ("weird", True, False), "vocab_file": str(weird_vocab),
               "do_lower_case": True, "texts_file": files["hard"],
               "dump_vocab": True})
  spec_path, out_path = tmp / "spec.json", tmp / "out.json"
  with open(spec_path, "w") as f:
    json.dump({"runs": runs}, f)
  run_golden("tests.golden.tokenization_golden", spec_path, out_path)
  with open(out_path) as f:
    results = json.load(f)["runs"]
  by_key = {tuple(run["key"]): res
            for run, res in paired(runs, results, "tokenizer runs")}
  return {"inputs": inputs, "results": by_key, "minilm": minilm_vocab,
          "weird_vocab": str(weird_vocab)}


def _first_mismatches(texts, expected, tokenize, limit=3):
  bad = []
  for text, want in paired(texts, expected, "tokenized texts"):
    got = tokenize(text)
    if got != want:
      bad.append((text, got, want))
  return len(bad), bad[:limit]


def test_corpus_is_real_and_multilingual(golden):
  lines = golden["inputs"]["corpus"]
  assert sum(len(l) for l in lines) >= 450_000
  scripts = {"\u4e00" <= c <= "\u9fff" for l in lines[:20000] for c in l}
  assert True in scripts  # Chinese present.
  assert any("\u0400" <= c <= "\u04ff" for l in lines for c in l[:50])
  assert any("\u0e00" <= c <= "\u0e7f" for l in lines for c in l[:50])


@pytest.mark.parametrize("name,lower", [("corpus", True),
                                        ("corpus_cased", False)])
def test_corpus_tokens_and_ids_identical(golden, name, lower):
  texts = golden["inputs"][name]
  result = golden["results"][(name, lower, False)]
  tok = tokenization.FullTokenizer(golden["minilm"], do_lower_case=lower)
  assert _first_mismatches(texts, result["tokens"], tok.tokenize) == (0, [])
  assert _first_mismatches(texts, result["ids"], tok.tokenize_to_ids) == (
      0, [])


@pytest.mark.parametrize("lower,preserve", [(True, False), (False, False),
                                            (True, True)])
@pytest.mark.parametrize("cache", [True, False])
def test_hard_texts_identical(golden, lower, preserve, cache):
  texts = golden["inputs"]["hard"]
  result = golden["results"][("hard", lower, preserve)]
  tok = tokenization.FullTokenizer(golden["minilm"], do_lower_case=lower,
                                   preserve_unused_tokens=preserve,
                                   cache=cache)
  assert _first_mismatches(texts, result["tokens"], tok.tokenize) == (0, [])


@pytest.mark.parametrize("lower", [True, False])
def test_bytes_inputs_identical(golden, lower):
  texts = golden["inputs"]["bytes"]
  result = golden["results"][("bytes", lower, False)]
  for cache in (True, False):
    tok = tokenization.FullTokenizer(golden["minilm"], do_lower_case=lower,
                                     cache=cache)
    assert _first_mismatches(texts, result["tokens"], tok.tokenize) == (
        0, [])


def test_weird_vocab_ids_and_tokens_identical(golden):
  result = golden["results"][("weird", True, False)]
  vocab = tokenization.load_vocab(golden["weird_vocab"])
  assert [list(kv) for kv in vocab.items()] == result["vocab"]
  tok = tokenization.FullTokenizer(golden["weird_vocab"])
  texts = golden["inputs"]["hard"]
  assert _first_mismatches(texts, result["tokens"], tok.tokenize) == (0, [])


@pytest.mark.parametrize("name,lower", [("corpus", True),
                                        ("corpus_cased", False)])
def test_in_graph_matches_original_on_corpus(golden, name, lower):
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from tokenization import tf_text  # pylint: disable=g-import-not-at-top
  texts = golden["inputs"][name]
  expected = golden["results"][(name, lower, False)]["ids"]
  tok = tf_text.InGraphTokenizer(golden["minilm"], do_lower_case=lower)
  got = []
  for start in range(0, len(texts), 4096):
    batch = tf.constant([t.encode("utf-8") for t in texts[start:start + 4096]])
    got.extend(tok.tokenize(batch).to_list())
  bad = [(t, g, e) for (t, g), e in paired(zip(texts, got), expected,
                                             "in-graph ids") if g != e]
  assert (len(bad), bad[:2]) == (0, [])
