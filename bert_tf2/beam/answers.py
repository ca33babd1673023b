"""A raw-text signature's outputs -> one JSON-able answer per input text.

`rows` cuts a task's batch of outputs (bert_tf2/common/serving.py) into one
dict per input: strings decoded, numbers as Python floats and ints, per-word
outputs cut to the input's `num_words`. Needs numpy only.

Example:
  >>> import numpy as np
  >>> rows({"tags": np.array([[b"B-PER", b"O"], [b"O", b""]], dtype=object),
  ...       "num_words": np.array([2, 1], np.int32)})
  [{'tags': ['B-PER', 'O'], 'num_words': 2}, {'tags': ['O'], 'num_words': 1}]
  >>> rows({"label": np.array([b"yes"], dtype=object),
  ...       "probabilities": np.array([[0.25, 0.75]], np.float32)})
  [{'label': 'yes', 'probabilities': [0.25, 0.75]}]
"""

import numpy as np

# An output holding each input's length along axis 1 of the per-word outputs.
LENGTH_KEY = "num_words"


def to_json(value):
  """A numpy value -> str / float / int / bool, or nested lists of them."""
  if isinstance(value, np.ndarray):
    return [to_json(v) for v in value]
  if isinstance(value, bytes):
    return value.decode("utf-8")
  if isinstance(value, np.generic):
    return value.item()
  return value


def rows(outputs):
  """{name: array [batch, ...]} -> list of batch dicts {name: JSON value}.

  With a `num_words` output, every output of rank >= 2 as wide as the
  longest input is cut to each input's `num_words` (NER's words and tags).
  """
  outputs = {name: np.asarray(value) for name, value in outputs.items()}
  sizes = {value.shape[0] for value in outputs.values()}
  if len(sizes) != 1:
    raise ValueError("outputs of different batch sizes: %s" % {
        name: value.shape for name, value in outputs.items()})
  lengths = outputs.get(LENGTH_KEY)
  width = int(lengths.max()) if lengths is not None and lengths.size else None
  answers = []
  for i in range(sizes.pop()):
    answer = {}
    for name, value in outputs.items():
      row = value[i]
      if (lengths is not None and name != LENGTH_KEY and value.ndim >= 2
          and value.shape[1] == width):
        row = row[:int(lengths[i])]
      answer[name] = to_json(row)
    answers.append(answer)
  return answers
