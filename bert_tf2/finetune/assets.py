"""A predictor's settings from a training output_dir.

The training scripts record what rebuilds their model in
`output_dir/model.json` (`bert_tf2.common.artifact`, written by the
fine-tuning driver from `Job.model_record`). `load_assets(output_dir,
kind)` turns that record into a predictor's constructor arguments
(bert_config_file, vocab_file, checkpoint, do_lower_case, max_seq_length
and the task's own), so `ClassifierPredictor.from_output_dir(output_dir)`
needs nothing else; output_dirs of earlier versions, which kept
`output_dir/predictor/predictor.json` with copies of config and vocabulary
(classifier and SQuAD runs), still load. It lives here, below
`bert_tf2.predict`, beside the jobs that write the record.

Example:
  >>> load_assets("/tmp/mrpc_output", "classifier")["label_list"]  # doctest: +SKIP
  ['0', '1']
"""

import hashlib
import json
import os

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.runner import checkpoints

# An earlier version's layout (read, no longer written).
ASSETS_DIR = "predictor"
ASSETS_FILE = "predictor.json"
# model.json's names that a predictor's constructor spells otherwise.
_PREDICTOR_NAMES = {"labels": "label_list"}


def load_assets(output_dir, kind=None):
  """A predictor's constructor arguments from output_dir/model.json (or an
  earlier version's predictor/predictor.json); "checkpoint" is the
  recorded answer when model.json names one.

  Raises:
    InputError: neither file, a damaged one (empty, cut short, garbage,
      copies not the ones training wrote), or one of another kind of task.
  """
  if artifact.exists(output_dir):
    found = artifact.read(output_dir)
    if kind is not None and found.task != kind:
      raise InputError("%s: holds a %r model, not a %r one"
                       % (output_dir, found.task, kind))
    info = {_PREDICTOR_NAMES.get(k, k): v
            for k, v in found.settings().items()}
    info.update(kind=found.task, bert_config_file=found.config_file,
                vocab_file=found.vocab_file,
                recorded_precision=found.precision)
    if found.checkpoint:
      info["checkpoint"] = found.checkpoint
    return info
  return _load_legacy(output_dir, kind)


def _load_legacy(output_dir, kind):
  """predictor/predictor.json of an earlier version (see module)."""
  directory = os.path.join(output_dir, ASSETS_DIR)
  path = os.path.join(directory, ASSETS_FILE)
  if not tf.io.gfile.exists(path):
    raise InputError("%s: no %s (written by the training scripts); pass "
                     "bert_config_file, vocab_file, ... explicitly instead"
                     % (output_dir, artifact.FILE))
  try:
    info = json.loads(artifact.read_bytes(path, "predictor settings")
                      .decode("utf-8"))
  except (ValueError, UnicodeDecodeError) as e:  # Empty, cut short, garbage.
    info = "not valid JSON (%s)" % (str(e).splitlines() or ["empty"])[0]
  if not isinstance(info, dict):
    raise InputError("%s is damaged: %s; rerun the training script on "
                     "this --output_dir to rewrite it (it resumes from the "
                     "checkpoints), or pass bert_config_file, vocab_file, "
                     "... explicitly" % (path, info if isinstance(info, str)
                                         else "not a JSON object"))
  if kind is not None and info.get("kind") != kind:
    raise InputError("%s: holds a %r model, not a %r one"
                     % (output_dir, info.get("kind"), kind))
  for name, digest in sorted((info.pop("sha256", None) or {}).items()):
    _check_copy(artifact.check_name(directory, name, "sha256"), digest)
  info["bert_config_file"] = os.path.join(directory, "bert_config.json")
  info["vocab_file"] = os.path.join(directory, "vocab.txt")
  return info


def _digest(data):
  return hashlib.sha256(data).hexdigest()


def _check_copy(path, digest):
  """Raises InputError unless the file at `path` is the copy training
  wrote (an emptied, cut short or overwritten vocab would tokenize wrongly
  without a word)."""
  if not tf.io.gfile.exists(path):
    raise InputError("%s is missing; rerun the training script on this "
                     "--output_dir to rewrite it" % path)
  same = _digest(artifact.read_bytes(path, "a copy training wrote")) == digest
  if not same:
    raise InputError("%s is damaged (not the copy training wrote: emptied, "
                     "cut short or overwritten); rerun the training script "
                     "on this --output_dir to rewrite it" % path)


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
