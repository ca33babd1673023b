"""`Int8Task`: an ONNX Runtime session standing in for a task model.

A stand-in session that runs the float32 task itself (no conversion, no
onnxruntime) shows the wrapper's own work: the task's output structure
(a Tensor, a tuple, a dict) and dtypes kept, the static dimensions that do
not change with the batch or the length, the task's other attributes
read through, and the refusals of what an int8 model cannot be.
"""

import numpy as np
import pytest
import tensorflow as tf

from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from bert_tf2.feature_extraction.text_model import EncoderLayers
from bert_tf2.predict import int8_task
from bert_tf2.squad.model import SquadModel
from tests.common import tiny_dir


class _Session(object):
  """Runs `task` on NumPy ids like `int8.OnnxModel` (a flat tuple)."""

  path = "/nowhere/model_int8.onnx"

  def __init__(self, task):
    self.task, self.calls = task, 0

  def __call__(self, input_ids, input_mask, segment_ids):
    self.calls += 1
    out = self.task({"input_ids": input_ids, "input_mask": input_mask,
                     "segment_ids": segment_ids}, training=False)
    return tuple(np.asarray(t) for t in tf.nest.flatten(out))


def _features(batch, length):
  ids = np.random.RandomState(batch).randint(5, 30, [batch, length])
  return {"input_ids": tf.constant(ids, tf.int32),
          "input_mask": tf.ones([batch, length], tf.int32),
          "segment_ids": tf.zeros([batch, length], tf.int32)}


@pytest.mark.parametrize("make", [
    lambda cfg: BertClassifier(cfg, 3),
    SquadModel,
    lambda cfg: EncoderLayers(cfg, layers=(-1, 0))])
def test_outputs_keep_the_tasks_structure_eager_and_traced(make):
  task = make(tiny_dir.config())
  session = _Session(task)
  wrapped = int8_task.Int8Task(task, session)
  features = _features(5, 7)
  want = task(features, training=False)
  got = wrapped(features)
  assert tf.nest.map_structure(lambda t: t.dtype, got) == (
      tf.nest.map_structure(lambda t: t.dtype, want))
  for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
    np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-6)
  # Traced: the static dimensions are those that change with neither the
  # batch nor the length (a classifier's 3 labels, the encoder's hidden).
  spec = tf.TensorSpec([None, None], tf.int32)
  traced = tf.function(lambda i, m, s: wrapped(
      {"input_ids": i, "input_mask": m, "segment_ids": s}),
                       input_signature=[spec] * 3)
  shapes = [t.shape.as_list() for t in tf.nest.flatten(
      traced.get_concrete_function().structured_outputs)]
  wanted = [[None if d in (5, 7) else d for d in w.shape.as_list()]
            for w in tf.nest.flatten(want)]
  assert shapes == wanted
  calls = session.calls
  out = traced(*[features[k] for k in int8_task.FEATURES])
  assert session.calls == calls + 1  # The session ran, not the task.
  for g, w in zip(tf.nest.flatten(out), tf.nest.flatten(want)):
    np.testing.assert_allclose(g.numpy(), w.numpy(), atol=1e-6)


def test_attributes_are_the_tasks_and_no_weights_are_its(tmp_path):
  task = BertClassifier(tiny_dir.config(), 3, multi_label=True,
                        threshold=0.3)
  wrapped = int8_task.Int8Task(task, _Session(task))
  assert wrapped.is_int8 and wrapped.threshold == 0.3
  assert wrapped.num_labels == 3 and wrapped.onnx_path == _Session.path
  assert not wrapped.weights  # The int8 weights are the ONNX file's.
  with pytest.raises(AttributeError):
    wrapped.no_such_attribute  # pylint: disable=pointless-statement
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(tiny_dir.VOCAB) + "\n")
  model = TextModel(BertPreprocessor(str(vocab), max_seq_length=8), wrapped)
  with pytest.raises(InputError, match="no .keras form"):
    model.save(str(tmp_path / "m.keras"))
  with pytest.raises(InputError, match="^fit: an int8 model .* does not "
                     "train"):
    model.fit(["bob met ann"], [1])
  with pytest.raises(InputError, match=r"^export_dir=/x: an int8 model .*"
                     "model_int8.onnx$"):
    int8_task.check_exportable(model, "export_dir=/x")
  with pytest.raises(InputError, match="runs int8 already"):
    int8_task.export_onnx(model, str(tmp_path / "again.onnx"))


class _WordTask(object):
  """A task whose forward reads a feature the ONNX graph does not take."""

  def __call__(self, features, training=False):
    del training
    return features["word_ids"]


def test_a_task_of_other_inputs_is_refused_in_one_line():
  with pytest.raises(InputError, match=r"^precision='int8': not offered "
                     "for _WordTask .*word_ids"):
    int8_task.check_task(_WordTask())
