"""docs/keras.md's SQuAD example runs as written (on a tiny checkpoint
directory named as in the example) and its .keras file loads in a fresh
process with no custom objects."""

import os
import re
import subprocess

import keras
import numpy as np
import pytest

import modeling
from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "it", "was", "written",
         "by", "ann", "in", "1901", "who", "wrote", "when", "?", "."]


def _example():
  with open(os.path.join(REPO, "docs", "keras.md"), encoding="utf-8") as f:
    text = f.read()
  section = text.split("## SQuAD from raw strings", 1)[1]
  return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _tiny_checkpoint(directory):
  os.makedirs(directory)
  config = modeling.BertConfig(
      vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1,
      num_attention_heads=2, intermediate_size=24,
      max_position_embeddings=384)
  keras.utils.set_random_seed(0)
  encoder = modeling.BertModel(config)
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in
       modeling.original_variable_names(encoder).items()},
      os.path.join(directory, "bert_model.ckpt"))
  config.to_json_file(os.path.join(directory, "bert_config.json"))
  with open(os.path.join(directory, "vocab.txt"), "w") as f:
    f.write("\n".join(VOCAB) + "\n")


@pytest.mark.slow
def test_docs_squad_example(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  _tiny_checkpoint(str(tmp_path / "uncased_L-12_H-768_A-12"))
  scope = {}
  exec(compile(_example(), "docs/keras.md", "exec"), scope)  # pylint: disable=exec-used
  model = scope["model"]
  got = model.predict((scope["questions"], scope["contexts"]), verbose=0)
  assert got["answer"].shape == (2,) and got["num_windows"].tolist() == [1, 1]
  # An untrained tiny model: any span of the context, or the original's
  # "empty" when none of the top-20 logits is a valid span.
  assert all(a == "empty" or a in scope["contexts"][0]
             for a in got["answer"]), got["answer"]
  np.save(str(tmp_path / "want.npy"), got["start_logit"])
  script = (
      "import sys, numpy as np, keras\n"
      "import bert_tf2.models\n"
      "m = keras.models.load_model('squad.keras')\n"
      "got = m.predict((%r, %r), verbose=0)\n"
      "np.testing.assert_allclose(got['start_logit'], np.load('want.npy'),"
      " atol=1e-5)\n"
      "print(type(m).__name__, list(got['answer']))\n" % (
          scope["questions"], scope["contexts"]))
  out = subprocess.run([warm_python.command(), "-c", script],
                       cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=REPO),
                       capture_output=True, text=True, timeout=600)
  assert out.returncode == 0, out.stderr[-2000:]
  assert out.stdout.strip() == "SquadTextModel %r" % list(got["answer"])
