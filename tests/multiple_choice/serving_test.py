"""The raw-string SavedModel equals the Python predictor (in a fresh
process) and meets the serving contract."""

import json
import os
import subprocess

import numpy as np
import pytest
import tensorflow as tf

import modeling
import tokenization
from bert_tf2.common import InputError
from bert_tf2.common.serving import write_saved_model
from bert_tf2.multiple_choice.serving import multiple_choice_server
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.multiple_choice.predictor import MultipleChoicePredictor
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "c", "##s"]
CONTEXTS = ["a b c a b", "c", "B a"]
CHOICES = [["a", "b b b b b b", "c"], ["cs", "a \u00e9", "b"],
           ["c c", "a", "x y"]]

_LOAD = """
import json, sys
import numpy as np, tensorflow as tf
import tensorflow_text  # registers the tokenizer ops
args = json.loads(sys.argv[1])
serve = tf.saved_model.load(args["dir"]).signatures["serving_default"]
out = serve(context=tf.constant(args["contexts"]),
            choices=tf.constant(args["choices"]))
np.save(args["out"], out["probabilities"].numpy())
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
  d = tmp_path_factory.mktemp("mc")
  vocab = d / "vocab.txt"
  vocab.write_text("\n".join(VOCAB) + "\n")
  tf.keras.utils.set_random_seed(3)
  cfg = modeling.BertConfig(vocab_size=len(VOCAB), hidden_size=8,
                            num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=16, max_position_embeddings=16)
  model = BertMultipleChoice(cfg)
  predictor = MultipleChoicePredictor(
      model, tokenization.FullTokenizer(str(vocab)), 7)
  export_dir = str(d / "export")
  write_saved_model(multiple_choice_server(
      model, MultipleChoicePreprocessor(str(vocab), max_seq_length=7),
      chunk_size=2),
                    export_dir)
  return predictor, export_dir, d


def test_saved_model_equals_the_predictor_in_a_fresh_process(exported):
  predictor, export_dir, d = exported
  want = np.stack([predictor.predict(c, x)
                   for c, x in zip(CONTEXTS, CHOICES)])
  assert want.shape == (3, 3)
  np.testing.assert_allclose(want.sum(axis=1), 1., rtol=1e-6)
  out = str(d / "probabilities.npy")
  args = json.dumps({"dir": export_dir, "contexts": CONTEXTS,
                     "choices": CHOICES, "out": out})
  subprocess.run([warm_python.command(), "-c", _LOAD, args], check=True,
                 cwd=REPO, capture_output=True)
  np.testing.assert_allclose(np.load(out), want, rtol=1e-5, atol=1e-6)


def test_serving_contract(exported):
  _, export_dir, _ = exported
  serve = tf.saved_model.load(export_dir).signatures["serving_default"]
  empty = serve(context=tf.constant([], tf.string),
                choices=tf.zeros([0, 4], tf.string))
  assert empty["probabilities"].shape == (0, 4)
  assert empty["label"].shape == (0,)
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="choices: expected a \\[batch, num_choices\\]"):
    serve(context=tf.constant(["a"]), choices=tf.constant(["a", "b"]))
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="context must be a vector \\(rank 1\\)"):
    serve(context=tf.constant([["a"]]), choices=tf.constant([["a", "b"]]))
  with pytest.raises(tf.errors.InvalidArgumentError,
                     match="choices is not valid UTF-8 at positions\\] \\[1\\]"):
    serve(context=tf.constant(["a"]), choices=tf.constant([["a", b"\xff"]]))


def test_predictor_refuses_bad_arguments(exported):
  predictor, _, _ = exported
  with pytest.raises(InputError, match="choices: expected a list of at "
                     "least 2 strings"):
    predictor.predict("a", "b")
  with pytest.raises(InputError, match="context: expected a str"):
    predictor.predict(None, ["a", "b"])
