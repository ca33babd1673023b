"""`common.serving.TextServer`: one model trace for every signature."""

import numpy as np
import tensorflow as tf

from bert_tf2.common import serving
from bert_tf2.common.preprocessor import BertPreprocessor

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"]


def _counting_server(traces):
  """A server whose "model" counts each text's real tokens and records
  every time its Python body is traced."""

  def model(features, training):
    del training
    traces.append(features["input_ids"].shape.as_list())
    return tf.reduce_sum(features["input_mask"], axis=1)

  return serving.TextServer(
      BertPreprocessor(VOCAB, max_seq_length=8), model,
      lambda features, tokens, texts: {"tokens": tokens},
      signatures={"serving_default": ("text",),
                  "serving_other": ("text",),
                  "serving_ids": serving.IDS},
      chunk_size=2)


def test_an_export_traces_the_model_once_for_all_signatures(tmp_path):
  # Inlined, each signature traced the model twice (call_in_chunks' first
  # chunk and its loop): six traces and six copies in the SavedModel.
  traces = []
  export = serving.write_saved_model(_counting_server(traces),
                                     str(tmp_path / "export"))
  assert traces == [[None, None]]
  loaded = tf.saved_model.load(export)
  texts = tf.constant(["a a", "a", "b a b", "", "a"])  # Three chunks.
  want = [4, 3, 5, 2, 3]
  for name in ("serving_default", "serving_other"):
    got = loaded.signatures[name](text=texts)["tokens"]
    assert got.numpy().tolist() == want, name
  mask = np.array([[1] * n + [0] * (8 - n) for n in want], np.int32)
  got = loaded.signatures["serving_ids"](
      input_ids=tf.constant(mask * 4), input_mask=tf.constant(mask),
      segment_ids=tf.zeros_like(mask))["tokens"]
  assert got.numpy().tolist() == want


def test_the_signatures_outside_an_export_give_the_same_answers():
  traces = []
  server = _counting_server(traces)
  functions = server.signature_functions()
  texts = tf.constant(["b", "a a a", ""])
  assert (functions["serving_default"](texts)["tokens"].numpy().tolist()
          == [3, 5, 2])
  # Unshared (the squad text model's `answer`): the model inlined.
  inlined = server.answer(texts)["tokens"].numpy().tolist()
  assert inlined == [3, 5, 2]
