"""Tests of attention extraction and visualize_attention on a tiny model."""

import json
import os
import re

import numpy as np
import pytest

from bert_research.analysis import attention
from bert_research.analysis import attention_plots
from bert_research.analysis import attention_run
from bert_research.analysis import plots
from tests.research.analysis import scripts_test
from tokenization.errors import InputError

WORDS = ["the", "cat", "sat", "on", "mat", "it", "pur", "##red", "."]
TINY = {"vocab_size": 5 + len(WORDS), "hidden_size": 16,
        "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 32, "max_position_embeddings": 32,
        "type_vocab_size": 2}


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
  """bert_config.json, vocab.txt and a random-weights bert_model.ckpt."""
  import modeling  # pylint: disable=g-import-not-at-top
  out = str(tmp_path_factory.mktemp("tiny"))
  with open(os.path.join(out, "vocab.txt"), "w") as f:
    f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS)
            + "\n")
  with open(os.path.join(out, "bert_config.json"), "w") as f:
    json.dump(TINY, f)
  model = modeling.BertModel(modeling.BertConfig.from_dict(TINY))
  ids = np.zeros((1, 3), np.int32)
  model({"input_ids": ids}, training=False)
  modeling.write_checkpoint(modeling.original_variable_names(model),
                            os.path.join(out, "bert_model.ckpt"))
  return out


class _Tokenizer:
  vocab = {t: i for i, t in enumerate(
      ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + WORDS)}

  def tokenize(self, text):
    return text.split()

  def convert_tokens_to_ids(self, tokens):
    return [self.vocab[t] for t in tokens]


def test_encode_text_layout_and_truncation():
  tok = _Tokenizer()
  tokens, ids, types = attention.encode_text(tok, "the cat sat", "it pur")
  assert tokens == ["[CLS]", "the", "cat", "sat", "[SEP]", "it", "pur",
                    "[SEP]"]
  assert list(types) == [0, 0, 0, 0, 0, 1, 1, 1]
  assert list(ids) == tok.convert_tokens_to_ids(tokens)
  tokens, _, _ = attention.encode_text(tok, "the cat sat on mat", "it pur",
                                       max_seq_length=7)
  assert tokens == ["[CLS]", "the", "cat", "[SEP]", "it", "pur", "[SEP]"]
  tokens, _, types = attention.encode_text(tok, "the cat sat on", None, 4)
  assert tokens == ["[CLS]", "the", "cat", "[SEP]"] and not any(types)
  with pytest.raises(InputError, match="--text_a"):
    attention.encode_text(tok, "   ")


def test_parse_index_list():
  assert attention.parse_index_list("layers", "all", 3) == [0, 1, 2]
  assert attention.parse_index_list("layers", "2, 0,-1", 4) == [0, 2, 3]
  with pytest.raises(InputError, match="--layers=0,7: index 7 out of range"):
    attention.parse_index_list("layers", "0,7", 4)
  with pytest.raises(InputError, match="--heads=x: 'x' is not an integer"):
    attention.parse_index_list("heads", "x", 4)


def test_attention_maps_shape_and_rows(tiny_model_dir):
  model, config = attention_run.load_bert(
      os.path.join(tiny_model_dir, "bert_config.json"),
      os.path.join(tiny_model_dir, "bert_model.ckpt"))
  probs = attention.attention_maps(model, [2, 5, 6, 3], [0, 0, 0, 0])
  assert probs.shape == (config.num_hidden_layers,
                         config.num_attention_heads, 4, 4)
  np.testing.assert_allclose(probs.sum(-1), 1.0, atol=1e-5)


def test_plot_attention_grid(tmp_path):
  probs = np.random.RandomState(0).dirichlet(np.ones(5), size=(2, 3, 5))
  path = str(tmp_path / "grid.png")
  attention_plots.plot_attention_grid(probs, list("abcde"), path)
  assert plots.is_png(path) and os.path.getsize(path) > 1000
  with pytest.raises(ValueError, match="probs must be"):
    attention_plots.plot_attention_grid(probs, list("abc"), path)


def test_attention_grid_has_one_colour_bar(tmp_path, monkeypatch):
  seen = []
  real_save = plots.save_figure

  def save(fig, path, **kwargs):
    seen.extend(ax.get_ylabel() for ax in fig.axes)
    real_save(fig, path, **kwargs)

  monkeypatch.setattr(plots, "save_figure", save)
  probs = np.random.RandomState(1).dirichlet(np.ones(4), size=(2, 2, 4))
  attention_plots.plot_attention_grid(probs, list("abcd"),
                                      str(tmp_path / "g.png"))
  bars = [label for label in seen if label.startswith("attention weight")]
  assert len(bars) == 1 and len(seen) == 2 * 2 + 1, seen


def test_load_bert_rejects_mismatched_config(tiny_model_dir, tmp_path):
  bigger = dict(TINY, num_hidden_layers=3)
  config = str(tmp_path / "bert_config.json")
  with open(config, "w") as f:
    json.dump(bigger, f)
  with pytest.raises(InputError, match="num_hidden_layers=3 but the "
                     "checkpoint has %d" % TINY["num_hidden_layers"]):
    attention_run.load_bert(config,
                            os.path.join(tiny_model_dir, "bert_model.ckpt"))


def test_visualize_attention_script(tiny_model_dir, tmp_path):
  out = str(tmp_path / "attention.png")
  d = tiny_model_dir
  proc = scripts_test.run_script(
      "visualize_attention.py",
      "--bert_config_file=" + os.path.join(d, "bert_config.json"),
      "--init_checkpoint=" + os.path.join(d, "bert_model.ckpt"),
      "--vocab_file=" + os.path.join(d, "vocab.txt"),
      "--text_a=The cat sat on the mat.", "--text_b=It purred.",
      "--layers=-1", "--output_file=" + out)
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert plots.is_png(out) and os.path.getsize(out) > 1000
  assert "1 x 4 attention maps over" in proc.stdout
  with open(str(tmp_path / "attention.html"), encoding="utf-8") as f:
    page = f.read()
  data = json.loads(re.search(
      r'<script id="data" type="application/json">(.*?)</script>', page,
      re.S).group(1))
  assert data["layers"] == [1] and data["heads"] == [0, 1, 2, 3]
  probs = np.asarray(data["probs"])
  assert probs.shape == (1, 4, len(data["tokens"]), len(data["tokens"]))
  np.testing.assert_allclose(probs.sum(-1), 1.0, atol=1e-3)
  assert "attention.html" in proc.stdout


def test_visualize_bad_inputs(tiny_model_dir, tmp_path):
  d = tiny_model_dir
  args = dict(bert_config_file=os.path.join(d, "bert_config.json"),
              init_checkpoint=os.path.join(d, "bert_model.ckpt"),
              vocab_file=os.path.join(d, "vocab.txt"), text_a="the cat",
              output_file=str(tmp_path / "a.png"))
  for change, message in [
      ({"vocab_file": str(tmp_path / "none.txt")}, "--vocab_file=.*not found"),
      ({"text_a": " "}, "--text_a is required"),
      ({"max_seq_length": 33}, "--max_seq_length=33: the model has only 32"),
      ({"layers": "2"}, "--layers=2: index 2 out of range"),
      ({"output_file": str(tmp_path / "a.html")},
       "--output_file=.*a.html: the PNG grid's path"),
  ]:
    with pytest.raises(InputError, match=message):
      attention_run.visualize(**dict(args, **change))
  assert not os.path.exists(args["output_file"])


def test_output_file_is_checked_before_the_model_is_loaded(
    tiny_model_dir, tmp_path, monkeypatch):
  """Issue 46: --output_file in a directory that does not exist failed
  after the work (71 s on a real model), naming an internal temp file."""
  def no_model(*unused_args):
    raise AssertionError("the model was loaded before --output_file's check")
  monkeypatch.setattr(attention_run, "load_bert", no_model)
  d = tiny_model_dir
  args = dict(bert_config_file=os.path.join(d, "bert_config.json"),
              init_checkpoint=os.path.join(d, "bert_model.ckpt"),
              vocab_file=os.path.join(d, "vocab.txt"), text_a="the cat")
  missing = str(tmp_path / "no_dir" / "a.png")
  with pytest.raises(InputError) as raised:
    attention_run.visualize(output_file=missing, **args)
  assert str(raised.value) == "--output_file=%s: directory %s does not exist" % (
      missing, tmp_path / "no_dir")
  long_name = str(tmp_path / ("a" * 240 + ".png"))  # 244 + 17 > 255.
  with pytest.raises(InputError, match=r"--output_file=.*: the name a+\.\.\. "
                     r"is 244 bytes, 261 with the 17-character temporary "
                     r"suffix"):
    attention_run.visualize(output_file=long_name, **args)
