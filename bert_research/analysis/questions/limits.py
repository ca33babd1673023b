"""`limits`: what our model does past max_position_embeddings and with a
segment id >= type_vocab_size.
"""

import numpy as np

from bert_research.analysis.questions import common
from tokenization.errors import InputError


def limit_cases(model, config):
  """What the model does past its limits.

  Returns:
    list of (case, outcome) strings: a sequence one position too long, and
    a segment id equal to type_vocab_size (compared with the same input
    with the segment embedding left out).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  cases = []
  n = config.max_position_embeddings + 1
  try:
    model({"input_ids": np.ones([1, n], np.int32)})
    cases.append(("%d positions" % n, "ran (no error)"))
  except (InputError, tf.errors.InvalidArgumentError, ValueError) as e:
    cases.append(("%d positions" % n, error_line(e)))
  ids = np.array([[1, 5, 6, 2]], np.int32)
  third = np.full_like(ids, config.type_vocab_size)
  try:
    out = model.embeddings(ids, third)[0]
  except (InputError, tf.errors.InvalidArgumentError, ValueError) as e:
    cases.append(("segment id %d" % config.type_vocab_size, error_line(e)))
    return cases
  emb = model.embeddings
  word = tf.gather(emb.word_embeddings, ids)
  pos = tf.convert_to_tensor(emb.position_embeddings)[:ids.shape[1]][None]
  no_segment = emb.layer_norm(word + pos)
  diff = float(np.max(np.abs(np.asarray(out) - np.asarray(no_segment))))
  cases.append(("segment id %d" % config.type_vocab_size,
                "ran (no error): the embedding output differs from the same "
                "input with no segment embedding at all by at most %.2g" % diff))
  return cases


def error_line(error):
  """"Type: message", the message without Keras's call wrapper.

  >>> error_line(ValueError("Exception encountered when calling X.call().\\n"
  ...                       "\\n\\x1b[1mbad length\\x1b[0m\\n\\nArguments: ..."))
  'ValueError: bad length'
  """
  lines = [l.replace("\x1b[1m", "").replace("\x1b[0m", "").strip()
           for l in str(error).splitlines()]
  lines = [l for l in lines if l and not l.startswith("Exception encountered")]
  return "%s: %s" % (type(error).__name__, lines[0] if lines else "")


def run_limits(args):
  model, config = common.load_model(args.bert_config_file, args.init_checkpoint)
  print("| input | what our BertModel does |")
  print("|---|---|")
  for case, outcome in limit_cases(model, config):
    print("| %s | %s |" % (case, outcome.replace("|", "/")))
