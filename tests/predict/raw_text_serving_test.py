"""Every raw-text SavedModel refuses bad input and serves big input in chunks.

Tiny classifier, NER, SQuAD and feature SavedModels are exported with
chunk_size=CHUNK and a model wrapper that asserts (in graph, so inside the
SavedModel) that no model call sees more than CHUNK rows. One fresh
process importing only tensorflow and tensorflow_text loads all of them and
checks: an empty batch gives empty outputs; a 2-D input and invalid UTF-8
are refused with a message naming the problem; a 20,000-character text and
a batch of 10,000 strings are served (the wrapper's assertion holds: the
model saw chunks, never the whole batch), with peak memory under a bound.
"""

import json
import os
import subprocess
import types

import keras
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.classifier import serving as classifier_serving
from bert_tf2.common import raw_text_serving
from bert_tf2.common import saved_model
from bert_tf2.common import serving
from bert_tf2.feature_extraction import serving as feature_serving
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.ner import serving as ner_serving
from bert_tf2.feature_extraction.predictor import FeatureEncoder
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.serving import squad_server
from tests import warm_python
from tests.predict.predict_test import CONFIG
from tests.predict.predict_test import VOCAB
from bert_tf2.common.preprocessor import BertPreprocessor

CHUNK = 256
SEQ = 16


class _AtMostRows(tf.Module):
  """The model, asserting in graph that a call sees at most `limit` rows."""

  def __init__(self, model, limit):
    super().__init__()
    self.model = model
    self.limit = limit

  def __call__(self, inputs, training=False):
    rows = tf.shape(tf.nest.flatten(inputs)[0])[0]
    with tf.control_dependencies([tf.debugging.assert_less_equal(
        rows, self.limit, message="model call over the chunk size")]):
      inputs = tf.nest.map_structure(tf.identity, inputs)
    return self.model(inputs, training=training)

  def decode(self, features, logits):
    """The NER model's tag decoding (argmax, or the CRF's Viterbi path)."""
    return self.model.decode(features, logits)

  def head_outputs(self, logits):
    """The classifier's answers from its logits."""
    return self.model.head_outputs(logits)


def _export_all(root):
  keras.utils.set_random_seed(0)
  vocab = root / "vocab.txt"
  vocab.write_text("\n".join(VOCAB) + "\n")
  exports = {}

  def write(name, server, signatures):
    exports[name] = saved_model.save_atomically(
        server, str(root / name), signatures)

  server = classifier_serving.classifier_server(
      _AtMostRows(BertClassifier(CONFIG, 3), CHUNK),
      BertPreprocessor(str(vocab), max_seq_length=SEQ), ["a", "b", "c"],
      chunk_size=CHUNK)
  write("classifier", server, {
      "serving_default": server.text_signature(["text_a"]),
      "serving_pair": server.text_signature(["text_a", "text_b"])})
  server = classifier_serving.classifier_server(
      _AtMostRows(BertClassifier(CONFIG, 2), CHUNK),
      BertPreprocessor(str(vocab), max_seq_length=SEQ,
                       long_text="sliding_window", doc_stride=4),
      ["x", "y"], chunk_size=CHUNK)
  write("windows", server,
        {"serving_default": server.text_signature(["text_a"])})
  server = ner_serving.ner_server(
      _AtMostRows(BertTokenClassifier(CONFIG, 3), CHUNK),
      NerPreprocessor(str(vocab), ["O", "B-PER", "I-PER"],
                      max_seq_length=SEQ, doc_stride=7),
      chunk_size=CHUNK)
  write("ner", server, {"serving_default": server.text_signature(["text"])})
  server = squad_server(
      _AtMostRows(SquadModel(CONFIG), CHUNK),
      SquadPreprocessor(str(vocab), max_seq_length=32, doc_stride=8,
                        max_query_length=6),
      n_best_size=5, max_answer_length=6, version_2_with_negative=True,
      null_score_diff_threshold=0.0, chunk_size=CHUNK)
  write("squad", server,
        {"serving_default": server.text_signature(["question", "context"])})
  config = root / "bert_config.json"
  config.write_text(CONFIG.to_json_string())
  bert = modeling.BertModel(CONFIG)
  modeling.save_checkpoint(modeling.original_variable_names(bert),
                           str(root / "bert"), 1)
  encoder = FeatureEncoder(str(config), str(root / "bert"), str(vocab),
                           max_seq_length=SEQ)
  text_model = types.SimpleNamespace(
      preprocessor=encoder.model.preprocessor,
      task=_AtMostRows(encoder.model.task, CHUNK))
  exports["features"] = serving.write_saved_model(
      feature_serving.feature_server(text_model, chunk_size=CHUNK),
      str(root / "features"))
  return exports


# Each case: (SavedModel, signature, {argument: texts}); the checks below
# call it with an empty batch, a 2-D batch, invalid UTF-8, one long text and
# many texts.
_SERVE = r"""
import json, resource, sys
import tensorflow as tf, tensorflow_text  # noqa: F401 (registers ops)
exports = json.loads(sys.argv[1])
long_text = ("w1 alpha, w2 (betas) w3. " * 900)[:20000]
many = ["w%d alpha w%d" % (i % 30, (7 * i) % 30) for i in range(10000)]
cases = [("classifier", "serving_default", ["text_a"]),
         ("classifier", "serving_pair", ["text_a", "text_b"]),
         ("windows", "serving_default", ["text_a"]),
         ("ner", "serving_default", ["text"]),
         ("squad", "serving_default", ["question", "context"]),
         ("features", "serving_default", ["text"]),
         ("features", "serving_pair", ["text_a", "text_b"])]
out = {}
for name, signature, args in cases:
  fn = tf.saved_model.load(exports[name]).signatures[signature]
  call = lambda texts: fn(**{a: tf.constant(texts) for a in args})
  key = name + "/" + signature
  got = out[key] = {}
  got["empty"] = {k: v.shape.as_list() for k, v in
                  call(tf.zeros([0], tf.string)).items()}
  for bad, texts in [("2-D", [["w1", "w2"], ["w3", "w4"]]),
                     ("utf8", [b"w1", b"w2 \xff\xfe w3"])]:
    try:
      call(texts)
      got[bad] = "accepted"
    except tf.errors.InvalidArgumentError as e:
      got[bad] = e.message
  got["long"] = {k: v.shape.as_list()[:1] for k, v in
                 call([long_text]).items()}
  got["many"] = {k: v.shape.as_list()[:1] for k, v in
                 call(many).items()}
assert not any(m.split(".")[0] in ("modeling", "bert_tf2", "tokenization")
               for m in sys.modules), "loaded project code"
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
  root = tmp_path_factory.mktemp("raw_text_serving")
  exports = _export_all(root)
  env = dict(os.environ, PYTHONPATH="")
  proc = subprocess.run(
      [warm_python.command(), "-c", _SERVE, json.dumps(exports)],
      capture_output=True, text=True, env=env, cwd=str(root), timeout=600)
  assert proc.returncode == 0, proc.stderr[-3000:]
  return json.loads(proc.stdout.split("RESULT", 1)[1])


KEYS = ["classifier/serving_default", "classifier/serving_pair",
        "windows/serving_default", "ner/serving_default",
        "squad/serving_default", "features/serving_default",
        "features/serving_pair"]


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_empty_batch_gives_empty_outputs(served, key):
  shapes = served[key]["empty"]
  assert shapes and all(s[0] == 0 for s in shapes.values()), shapes


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_bad_input_is_refused_with_a_message(served, key):
  assert "must be a vector (rank 1) of strings" in served[key]["2-D"]
  assert "is not valid UTF-8 at positions" in served[key]["utf8"]


@pytest.mark.slow
@pytest.mark.parametrize("key", KEYS)
def test_long_text_and_big_batch_in_bounded_chunks(served, key):
  # The model wrapper's in-graph assertion held for every call (else the
  # subprocess failed), so no call saw more than CHUNK rows.
  assert set(n for n, in served[key]["long"].values()) == {1}
  assert set(n for n, in served[key]["many"].values()) == {10000}
  # Generous: the tiny models in chunks need far less than this.
  assert served["peak_rss_mb"] < 4000


def test_chunks_in_process_keep_row_order_and_bound_each_call():
  seen = []

  def fn(x):
    seen.append(x.shape)
    return {"rows": tf.fill(tf.shape(x)[:1], tf.shape(x)[0]), "x": x + 1}

  @tf.function
  def run(x):
    return raw_text_serving.call_in_chunks(fn, x, chunk_size=3)

  out = run(tf.reshape(tf.range(14), [7, 2]))
  assert out["x"].numpy()[:, 0].tolist() == [1, 3, 5, 7, 9, 11, 13]
  assert out["rows"].numpy().tolist() == [3, 3, 3, 3, 3, 3, 1]
  empty = run(tf.zeros([0, 2], tf.int32))
  assert empty["x"].shape.as_list() == [0, 2]
  with pytest.raises(ValueError, match="chunk_size=0"):
    raw_text_serving.call_in_chunks(fn, tf.range(3), chunk_size=0)
