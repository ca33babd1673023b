"""The datasets the text models make of raw texts (`fit`, `evaluate`,
`predict` on lists of strings): batched as asked, in order, and without
tf.data autotuning (deleting an autotuned iterator at the end of a call
could wait for the autotuner's next wake-up, up to seconds)."""

import tensorflow as tf

from bert_tf2.common import text_model


def test_texts_become_ordered_batches_without_autotuning():
  texts = ["a", "b c", "d", "e f g", "h"]
  data, y, batch_size = text_model._as_dataset(texts, None, 2)  # pylint: disable=protected-access
  assert y is None and batch_size is None  # The dataset carries them.
  assert data.options().autotune.enabled is False
  got = [[t.decode() for t in b.numpy()] for (b,) in data]
  assert got == [["a", "b c"], ["d", "e f g"], ["h"]]
  labelled, _, _ = text_model._as_dataset(texts, [0, 1, 0, 1, 0], None,  # pylint: disable=protected-access
                                          shuffle=True)
  assert labelled.options().autotune.enabled is False
  pairs = [(t.decode(), int(l)) for x, l in labelled for t, l in zip(
      x.numpy(), l.numpy())]
  assert sorted(pairs) == sorted(zip(texts, [0, 1, 0, 1, 0]))


def test_a_callers_dataset_keeps_its_options():
  data = tf.data.Dataset.from_tensor_slices(["a", "b"]).batch(1)
  same, _, _ = text_model._as_dataset(data, None, None)  # pylint: disable=protected-access
  assert same is data
