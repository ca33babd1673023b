"""`tied`: is the MLM output layer the word-embedding table? (the
checkpoint's variables; with a config, our model's variables and
gradients).
"""

import numpy as np

from bert_research.analysis.questions import common
from tokenization.errors import InputError


def output_matrices(shapes, vocab_size, hidden_size):
  """Names of [vocab, hidden] or [hidden, vocab] variables (output layers).

  >>> output_matrices({"a/w": [10, 4], "b/w": [4, 10], "c": [10]}, 10, 4)
  ['a/w', 'b/w']
  """
  return sorted(n for n, s in shapes.items()
                if list(s) in ([vocab_size, hidden_size],
                               [hidden_size, vocab_size]))


OPTIMIZER_SLOTS = ("/adam_m", "/adam_v")


def model_variables(shapes):
  """The shapes without the optimizer's slot variables (the original's
  `NAME/adam_m`, `NAME/adam_v`, saved next to each weight).

  >>> model_variables({"w": [2], "w/adam_m": [2], "w/adam_v": [2]})
  {'w': [2]}
  """
  return {n: s for n, s in shapes.items() if not n.endswith(OPTIMIZER_SLOTS)}


def tied_report(shapes):
  """The MLM head's variables and the [vocab, hidden] matrices of a checkpoint.

  Args:
    shapes: {variable name: shape} of a checkpoint (optimizer slots are
      left out).

  Returns:
    dict: word_embeddings (shape), mlm_head ({name: shape} under
    cls/predictions), output_matrices (names), tied (bool: the head has no
    matrix of its own and the only [vocab, hidden] matrix is the word table;
    False without a head: `tied_answer` words that case).
  """
  shapes = model_variables(shapes)
  if common.WORD not in shapes:
    raise InputError("checkpoint has no %s" % common.WORD)
  vocab, hidden = shapes[common.WORD]
  head = {n: list(s) for n, s in shapes.items()
          if n.startswith("cls/predictions/")}
  matrices = output_matrices(shapes, vocab, hidden)
  return {"word_embeddings": list(shapes[common.WORD]), "mlm_head": head,
          "output_matrices": matrices,
          "tied": bool(head) and matrices == [common.WORD]}


def tied_answer(report):
  """The answer's words: True / False, or that there is no head to tie.

  >>> tied_answer({"mlm_head": {}, "tied": False})
  'no MLM head saved'
  >>> tied_answer({"mlm_head": {"cls/predictions/output_bias": [5]}, "tied": True})
  'True'
  """
  return str(report["tied"]) if report["mlm_head"] else "no MLM head saved"


def model_tie_check(config):
  """Builds our PretrainingModel and checks the tie on its variables.

  Returns:
    dict: vocab_matrices (names of the model's [vocab, hidden] variables),
    head_variables (names of the MLM head's), logits_grad_rows (how many
    word-table rows get a gradient from the MLM logits of one input whose
    tokens are all id 0: every row when tied, only row 0 otherwise).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining import model as pretraining_model  # pylint: disable=g-import-not-at-top
  model = pretraining_model.PretrainingModel(config)
  ids = tf.zeros([1, 4], tf.int32)
  features = {"input_ids": ids, "input_mask": tf.ones_like(ids),
              "segment_ids": tf.zeros_like(ids),
              "masked_lm_positions": tf.constant([[1, 2]]),
              "masked_lm_ids": tf.constant([[0, 0]]),
              "masked_lm_weights": tf.ones([1, 2]),
              "next_sentence_labels": tf.zeros([1, 1], tf.int32)}
  model(features)
  table = model.bert.embeddings.word_embeddings
  with tf.GradientTape() as tape:
    out = model(features)
    logits = out["masked_lm_logits"] if isinstance(out, dict) else out[0]
    loss = tf.reduce_sum(tf.nn.log_softmax(logits)[..., 1:])
  grad = tf.convert_to_tensor(tape.gradient(loss, table))
  rows = int(np.sum(np.any(np.asarray(grad) != 0, axis=1)))
  v, h = config.vocab_size, config.hidden_size
  return {"vocab_matrices": sorted(
      w.path for w in model.weights if list(w.shape) in ([v, h], [h, v])),
          "head_variables": sorted(w.path for w in model.masked_lm.weights),
          "logits_grad_rows": rows, "vocab_size": v}


def run_tied(args):
  from bert_research.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  report = tied_report(checkpoint_io.list_variables(args.init_checkpoint))
  print("| checkpoint variable | shape |")
  print("|---|---|")
  print("| %s | %s |" % (common.WORD, report["word_embeddings"]))
  for name, shape in sorted(report["mlm_head"].items()):
    print("| %s | %s |" % (name, shape))
  if not report["mlm_head"]:
    print("| (no cls/predictions/ variables: no MLM head saved) | |")
  print("[vocab, hidden] matrices: %s; MLM head tied to the word table: %s"
        % (", ".join(report["output_matrices"]), tied_answer(report)))
  if args.bert_config_file:
    import modeling  # pylint: disable=g-import-not-at-top
    check = model_tie_check(
        modeling.BertConfig.from_json_file(args.bert_config_file))
    print("our PretrainingModel: [vocab, hidden] variables %s; MLM head "
          "variables %s; word-table rows with a gradient from the MLM "
          "logits of an all-id-0 input: %d of %d"
          % (check["vocab_matrices"], check["head_variables"],
             check["logits_grad_rows"], check["vocab_size"]))
