"""What a predictor needs besides weights, kept in a training output_dir.

`save_assets(output_dir, kind, bert_config_file, vocab_file, ...)` copies
bert_config.json and the vocabulary into `output_dir/predictor/` and writes
`output_dir/predictor/predictor.json` (atomically) with the task settings
(labels, max_seq_length, do_lower_case, ...). The fine-tuning jobs call it
(`Job.save_assets`), so `ClassifierPredictor.from_output_dir(output_dir)`
(`bert_tf2.predict`, which reads it with `load_assets` and `checkpoint_of`)
needs nothing else. It lives here, below `bert_tf2.predict`, so that the
jobs write it without importing the predictors.

Example:
  >>> save_assets(out, "classifier", "bert_config.json", "vocab.txt",
  ...             do_lower_case=True, max_seq_length=128,
  ...             label_list=["0", "1"])                # doctest: +SKIP
  >>> load_assets(out)["label_list"]                     # doctest: +SKIP
  ['0', '1']
"""

import json
import os

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_write_text
from bert_tf2.runner import checkpoints

ASSETS_DIR = "predictor"
ASSETS_FILE = "predictor.json"


def save_assets(output_dir, kind, bert_config_file, vocab_file, **settings):
  """Writes output_dir/predictor/{predictor.json,bert_config.json,vocab.txt}.

  Args:
    output_dir: the training output_dir.
    kind: "classifier", "squad" or "features".
    bert_config_file, vocab_file: copied next to predictor.json.
    **settings: JSON-serialisable task settings (do_lower_case, ...).
  """
  directory = os.path.join(output_dir, ASSETS_DIR)
  tf.io.gfile.makedirs(directory)
  for source, name in ((bert_config_file, "bert_config.json"),
                       (vocab_file, "vocab.txt")):
    with tf.io.gfile.GFile(source, "rb") as f:
      data = f.read()
    atomic_write_text(os.path.join(directory, name), data.decode("utf-8"))
  info = dict(settings, kind=kind)
  atomic_write_text(os.path.join(directory, ASSETS_FILE),
                    json.dumps(info, indent=2, sort_keys=True) + "\n")


def load_assets(output_dir, kind=None):
  """Reads predictor.json; adds "bert_config_file" and "vocab_file" paths.

  Raises:
    InputError: no predictor.json, or one of another kind of task.
  """
  directory = os.path.join(output_dir, ASSETS_DIR)
  path = os.path.join(directory, ASSETS_FILE)
  if not tf.io.gfile.exists(path):
    raise InputError("%s: no %s/%s (written by the training scripts); pass "
                     "bert_config_file, vocab_file, ... explicitly instead"
                     % (output_dir, ASSETS_DIR, ASSETS_FILE))
  with tf.io.gfile.GFile(path) as f:
    info = json.load(f)
  if kind is not None and info.get("kind") != kind:
    raise InputError("%s: holds a %r model, not a %r one"
                     % (output_dir, info.get("kind"), kind))
  info["bert_config_file"] = os.path.join(directory, "bert_config.json")
  info["vocab_file"] = os.path.join(directory, "vocab.txt")
  return info


def checkpoint_of(output_dir, best=False):
  """The latest (or, with best=True, the kept best) checkpoint of a run.

  Raises:
    InputError: the output_dir holds no such checkpoint.
  """
  directory = os.path.join(output_dir, "best") if best else output_dir
  path = checkpoints.latest_checkpoint(directory)
  if not path:
    raise InputError("%s: no %scheckpoint to load" % (
        directory, "best " if best else ""))
  return path
