"""A predictor's settings from a training output_dir.

`load_assets(output_dir, kind)` turns a run's `output_dir/model.json`
(`bert_tf2.common.artifact`) into a predictor's constructor arguments, so
`ClassifierPredictor.from_output_dir(output_dir)` needs nothing else;
earlier versions' `output_dir/predictor/predictor.json` still loads.

Example:
  >>> load_assets("/tmp/mrpc_output", "classifier")["label_list"]  # doctest: +SKIP
  ['0', '1']
"""

import os

import tensorflow as tf

import modeling
from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.common import named_files
from bert_tf2.common import record_schema
from bert_tf2.common import strict_json
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


# What an earlier version's predictor.json held (its writers: the
# classifier's and SQuAD's jobs), beside "kind" and "sha256".
_LEGACY_KINDS = ("classifier", "squad")


def _legacy_record(path, info):
  """predictor.json's `info` as a model.json record (record_schema
  checks it: the same types, ranges and unknown keys refused)."""
  kind = info.get("kind")
  if not isinstance(kind, str) or kind not in _LEGACY_KINDS:
    record_schema.refuse(path, "kind", kind, "one of %s (the layouts an "
                         "earlier version wrote)" % ", ".join(_LEGACY_KINDS))
  record = {"format": artifact.FORMAT, "version": artifact.VERSION,
            "task": kind, "config": "bert_config.json",
            "vocabulary": "vocab.txt", "sha256": info.get("sha256", {}),
            "preprocessor": {}, "model": {}, "outputs": {}}
  sections = record_schema.TASK_KEYS[kind]
  for key, value in sorted(info.items()):
    name = {"label_list": "labels"}.get(key, key)
    where = [s for s in record_schema.SECTIONS if name in sections[s]]
    if key in ("kind", "sha256"):
      continue
    if not where:
      record_schema.refuse(path, key, value, "no such key (%s, kind and "
                           "sha256 only)" % ", ".join(sorted(
                               {"labels": "label_list"}.get(k, k)
                               for s in sections.values() for k in s)))
    record[where[0]][name] = value
  record_schema.check(path, record, artifact.FORMAT, artifact.VERSION)
  return record


def _load_legacy(output_dir, kind):
  """predictor/predictor.json of an earlier version (see module): the
  same checks as model.json's (inside the directory, typed, digests);
  one naming a checkpoint (which could be any run's) is refused."""
  directory = os.path.join(output_dir, ASSETS_DIR)
  path = os.path.join(directory, ASSETS_FILE)
  if not tf.io.gfile.exists(path):
    raise InputError("%s: no %s (written by the training scripts); pass "
                     "bert_config_file, vocab_file, ... explicitly instead"
                     % (output_dir, artifact.FILE))
  named_files.inside(output_dir, path, "predictor settings")
  info = strict_json.parse(path, artifact.read_bytes(path, "predictor "
                                                             "settings"))
  if "checkpoint" in info:
    raise InputError(
        '%s: "checkpoint" is %r; an earlier version\'s record that names a '
        "checkpoint is not read (it may be another run's): rerun the "
        "training script on this --output_dir to record it as model.json "
        "(it resumes from the checkpoints), or pass checkpoint= explicitly"
        % (path, info["checkpoint"]))
  record = _legacy_record(path, info)
  if kind is not None and record["task"] != kind:
    raise InputError("%s: holds a %r model, not a %r one"
                     % (output_dir, record["task"], kind))
  files = {}
  for name in ("bert_config.json", "vocab.txt"):
    files[name] = named_files.inside(
        output_dir, os.path.join(directory, name), name)
    if name not in record["sha256"]:
      raise InputError('%s: "sha256" has no digest of %r; rerun the '
                       "training script on this --output_dir to record it "
                       "as model.json" % (path, name))
    named_files.check_digest(files[name], record["sha256"][name], "copy")
  config = modeling.BertConfig.from_json_file(files["bert_config.json"])
  record_schema.check_against(path, record, config.max_position_embeddings)
  info = dict(record["preprocessor"], **record["model"])
  info.update({_PREDICTOR_NAMES.get(k, k): v
               for k, v in record["outputs"].items()})
  info.update(kind=record["task"], bert_config_file=files["bert_config.json"],
              vocab_file=files["vocab.txt"])
  return info


def checkpoint_of(output_dir, best=False):
  """The latest (or, with best=True, the kept best) checkpoint of a run.

  Raises:
    InputError: the output_dir holds no such checkpoint.
  """
  directory = os.path.join(output_dir, "best") if best else output_dir
  named_files.checkpoints_inside(directory, output_dir)
  path = checkpoints.latest_checkpoint(directory)
  if not path:
    raise InputError("%s: no %scheckpoint to load" % (
        directory, "best " if best else ""))
  for name in named_files.checkpoint_files(path):
    named_files.inside(output_dir, name, "checkpoint")
  return path
