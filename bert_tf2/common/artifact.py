"""A run's output_dir is its model: `model.json` and the files it names.

A training script writes, into its --output_dir, everything that rebuilds
its model exactly (as keras-hub's preset directory):

  output_dir/
    model.json         the record below (written last, atomically)
    bert_config.json   copy of --bert_config_file
    vocab.txt          copy of --vocab_file
    model.ckpt-N.*     the checkpoints (best/model.ckpt-N.*: the kept best)

model.json:

  {"format": "bert_tf2.model", "version": 1,
   "task": "classifier",            # or ner, squad, multiple_choice,
                                    # embedding, pretraining
   "config": "bert_config.json", "vocabulary": "vocab.txt",
   "sha256": {"bert_config.json": "...", "vocab.txt": "...",
              "model.ckpt-12.index": "...",
              "model.ckpt-12.data-00000-of-00001": "..."},
   "checkpoint": "model.ckpt-12",   # or "best/model.ckpt-9"; absent: the
                                    # latest checkpoint of the directory
   "precision": "float32",          # the precision the run's answers were
                                    # made in (its --precision): every
                                    # loader's default; absent: float32
   "preprocessor": {"do_lower_case": true, "max_seq_length": 128, ...},
   "model": {"num_labels": 2, "multi_label": true, ...},
   "outputs": {"labels": ["no", "yes"], ...},
   "flags": {"data_dir": "...", "max_seq_length": 128, ...}}

"preprocessor" holds the raw-text side (casing, length, windows),
"model" the task model's constructor arguments, "outputs" how outputs are
named and decoded; `bert_tf2.models.load(dir)` passes the three to the
task's text-model builder. "flags" holds the training script's own flags
that define the run (`bert_tf2.finetune.recorded_flags`); the loaders do
not read it.

Names in model.json are plain file names inside the directory (the
checkpoint alone may sit in best/); anything else is refused in one line
before any file is opened, and so is a file that is not a regular file or
that leads outside the directory through a symlink
(`named_files.allowing_outside` opts in). Every key is typed and ranged by
`record_schema`; every file the record names has its sha256 recorded at
write time and checked at load (a missing digest is refused).

Example:
  >>> check_name("/run", "vocab.txt", "vocabulary")
  '/run/vocab.txt'
  >>> try:
  ...   check_name("/run", "../etc/passwd", "vocabulary")
  ... except InputError as e:
  ...   print(e)
  /run/model.json: "vocabulary" is '../etc/passwd'; expected a plain file name inside /run
"""

import collections
import contextlib
import json
import os
import re
import threading

import tensorflow as tf

import modeling
from bert_tf2.common import named_files
from bert_tf2.common import record_schema
from bert_tf2.common import strict_json
from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError

FILE = "model.json"
FORMAT = "bert_tf2.model"
VERSION = 1
CONFIG_FILE = "bert_config.json"
VOCAB_FILE = "vocab.txt"
# A plain file name; the checkpoint may also be best/<name> (the kept best).
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=+-]*$")
DEFAULT_PRECISION = "float32"  # Records without the key.


class Artifact(collections.namedtuple(
    "Artifact", ["directory", "task", "config_file", "vocab_file",
                 "checkpoint", "preprocessor", "model", "outputs",
                 "precision", "flags"])):
  """What model.json says, with paths resolved inside `directory`
  (vocab_file None: none recorded; checkpoint None: the latest of the
  directory; flags: the training script's, or None)."""

  def settings(self):
    """The builder's keyword arguments: preprocessor, model and outputs."""
    return dict(self.preprocessor, **dict(self.model, **self.outputs))


def exists(directory):
  """Whether `directory` holds a model.json (a run's artifact)."""
  return tf.io.gfile.exists(os.path.join(directory, FILE))


def check_name(directory, name, field, subdirs=()):
  """directory/name when `name` is a plain file name (or `<subdir>/<plain>`
  for a subdir in `subdirs`); else one InputError line."""
  parts = name.split("/") if isinstance(name, str) else [None]
  plain = (len(parts) == 1 or (len(parts) == 2 and parts[0] in subdirs))
  if not plain or not all(isinstance(p, str) and _PLAIN.match(p)
                          for p in parts):
    raise InputError("%s: \"%s\" is %r; expected a plain file name inside "
                     "%s" % (os.path.join(directory, FILE), field, name,
                             directory))
  return os.path.join(directory, *parts)


def read_bytes(path, what):
  """The bytes of regular file `path` (`named_files.check_regular`)."""
  named_files.check_regular(path, what)
  with tf.io.gfile.GFile(path, "rb") as f:
    return f.read()


def _checkpoint_files(directory, name):
  """{file name as model.json names it: path} of checkpoint `name`'s files
  (name: "model.ckpt-N" or "best/model.ckpt-N")."""
  prefix = os.path.join(directory, *name.split("/"))
  folder = os.path.dirname(name)
  return {(folder + "/" if folder else "") + os.path.basename(f): f
          for f in named_files.checkpoint_files(prefix)}


def _record_checkpoint(output_dir, record, checkpoint):
  """Names `checkpoint` in `record`, with the sha256 of its files."""
  record["checkpoint"] = relative_checkpoint(output_dir, checkpoint)
  for name, path in _checkpoint_files(output_dir, record["checkpoint"]).items():
    record["sha256"][name] = named_files.sha256(path)


def write(output_dir, task, bert_config_file, vocab_file=None,
          preprocessor=None, model=None, outputs=None, checkpoint=None,
          precision=DEFAULT_PRECISION, flags=None):
  """Writes output_dir/{bert_config.json,vocab.txt,model.json}, each
  atomically, model.json last.

  Args:
    output_dir: the run's output_dir.
    task: a task of `record_schema.TASK_KEYS`.
    bert_config_file, vocab_file: copied into output_dir (vocab_file None:
      none, e.g. pretraining).
    preprocessor, model, outputs: JSON-serialisable dicts (see module).
    checkpoint: the answer's checkpoint prefix, inside output_dir or its
      best/ (None: the latest at load time).
    precision: one of `record_schema.PRECISIONS` (the run's --precision).
    flags: {name: JSON value} of the training script's flags, or None.
  """
  if task not in record_schema.TASK_KEYS:
    raise ValueError("task %r: expected one of %s"
                     % (task, tuple(record_schema.TASK_KEYS)))
  if precision not in record_schema.PRECISIONS:
    raise ValueError("precision %r: expected one of %s"
                     % (precision, record_schema.PRECISIONS))
  record = {"format": FORMAT, "version": VERSION, "task": task,
            "config": CONFIG_FILE, "sha256": {}, "precision": precision}
  copies = [(bert_config_file, CONFIG_FILE)]
  if vocab_file:
    record["vocabulary"] = VOCAB_FILE
    copies.append((vocab_file, VOCAB_FILE))
  tf.io.gfile.makedirs(output_dir)
  for source, name in copies:
    with tf.io.gfile.GFile(source, "rb") as f:
      text = f.read().decode("utf-8")
    atomic_write_text(os.path.join(output_dir, name), text)
    record["sha256"][name] = named_files.sha256(os.path.join(output_dir,
                                                             name))
  if checkpoint:
    _record_checkpoint(output_dir, record, checkpoint)
  for name, section in zip(record_schema.SECTIONS,
                           (preprocessor, model, outputs)):
    record[name] = dict(section or {})
  if flags is not None:
    record["flags"] = dict(flags)
  atomic_write_text(os.path.join(output_dir, FILE),
                    json.dumps(record, indent=2, sort_keys=True) + "\n")


def relative_checkpoint(output_dir, checkpoint):
  """`checkpoint` (a prefix) as model.json names it: its base name, with
  best/ when it is in output_dir/best."""
  name = os.path.basename(checkpoint)
  same = os.path.normpath(os.path.dirname(checkpoint))
  if same == os.path.normpath(os.path.join(output_dir, "best")):
    return "best/" + name
  if same != os.path.normpath(output_dir):
    raise ValueError("checkpoint %s is not in %s (or its best/)"
                     % (checkpoint, output_dir))
  return name


def set_checkpoint(output_dir, checkpoint):
  """Names `checkpoint` the answer in output_dir/model.json (rewritten
  atomically, with the sha256 of its files in place of the previous
  answer's); nothing when there is no model.json."""
  path = os.path.join(output_dir, FILE)
  if not tf.io.gfile.exists(path):
    return
  record = _load_json(path)
  kept = [n for n in (record.get("config"), record.get("vocabulary")) if n]
  record["sha256"] = {n: d for n, d in record.get("sha256", {}).items()
                      if n in kept}
  _record_checkpoint(output_dir, record, checkpoint)
  atomic_write_text(path, json.dumps(record, indent=2, sort_keys=True) + "\n")


def _load_json(path):
  """model.json's object (`strict_json.parse`: bounded size and depth)."""
  return strict_json.parse(path, read_bytes(path, "the model record"))


def _missing_digest(path, name):
  raise InputError(
      '%s: "sha256" has no digest of %r; every file the record names needs '
      "one (a record of an earlier version, or edited: rerun the training "
      "script on this --output_dir to rewrite it; it resumes from the "
      "checkpoints)" % (path, name))


def _checked_files(directory, path, record, checkpoint):
  """Checks every file `record` names (inside the directory, regular, its
  recorded sha256); returns {name: path}."""
  names = {record["config"]: "config", record.get("vocabulary"):
           "vocabulary"}
  names.pop(None, None)
  if checkpoint is not None:
    names.update(dict.fromkeys(
        _checkpoint_files(directory, record["checkpoint"]), "checkpoint"))
  files = {n: os.path.join(directory, *n.split("/")) for n in names}
  for name, file_path in sorted(files.items()):
    named_files.inside(directory, file_path, names[name])
  digests = record["sha256"]
  for name in sorted(set(digests) - set(files)):
    record_schema.refuse(path, "sha256." + name, digests[name],
                         "digests of the files the record names only (%s)"
                         % ", ".join(sorted(files)))
  for name in sorted(files):
    if name not in digests:
      _missing_digest(path, name)
  for name, file_path in sorted(files.items()):
    named_files.check_digest(file_path, digests[name],
                             "copy" if names[name] != "checkpoint"
                             else "checkpoint file")
  return files


def _check_model(path, record, config_file, checkpoint):
  """The record's lengths against the config, its heads against the
  checkpoint's shapes (read from its index)."""
  config = modeling.BertConfig.from_json_file(config_file)
  record_schema.check_against(path, record, config.max_position_embeddings)
  if checkpoint is not None:
    try:
      shapes = tf.train.load_checkpoint(checkpoint).get_variable_to_shape_map()
    except (tf.errors.OpError, ValueError) as e:
      raise InputError("%s is damaged: %s; rerun the training script on "
                       "this --output_dir to rewrite it" % (
                           checkpoint, (str(e).splitlines() or ["?"])[0]))
    record_schema.check_head(path, record, shapes)


# The records read inside `read_once()` scopes of this thread.
_ONCE = threading.local()


@contextlib.contextmanager
def read_once():
  """Inside: `read(directory)` reads and checks a directory's model.json
  once, then answers the same `Artifact`. Scopes nest."""
  outer = getattr(_ONCE, "records", None)
  _ONCE.records = {} if outer is None else outer
  try:
    yield
  finally:
    _ONCE.records = outer


def read(directory):
  """`_read(directory)`, once per `read_once()` scope."""
  records = getattr(_ONCE, "records", None)
  if records is None:
    return _read(directory)
  key = os.path.realpath(directory)
  if key not in records:
    records[key] = _read(directory)
  return records[key]


def _read(directory):
  """The `Artifact` of directory/model.json, every file it names checked.

  Raises:
    InputError: no model.json, a damaged one, or a file it names that is
      not a plain regular file inside the directory, or not the one
      training wrote (see module).
  """
  path = os.path.join(directory, FILE)
  if not tf.io.gfile.exists(path):
    raise InputError("%s: no %s (written by the training scripts)"
                     % (directory, FILE))
  named_files.inside(directory, path, "model record")
  record = _load_json(path)
  record_schema.check(path, record, FORMAT, VERSION)
  # Every name is checked before any file is opened.
  config_file = check_name(directory, record.get("config"), "config")
  vocab_file = (check_name(directory, record["vocabulary"], "vocabulary")
                if "vocabulary" in record else None)
  checkpoint = (check_name(directory, record["checkpoint"], "checkpoint",
                           subdirs=("best",))
                if record.get("checkpoint") is not None else None)
  if checkpoint is not None:
    named_files.inside(directory, checkpoint + ".index", "checkpoint")
    named_files.check_regular(checkpoint + ".index",
                              "the recorded checkpoint's index")
  _checked_files(directory, path, record, checkpoint)
  _check_model(path, record, config_file, checkpoint)
  sections = [dict(record.get(name, {})) for name in record_schema.SECTIONS]
  return Artifact(directory, record["task"], config_file, vocab_file,
                  checkpoint, *sections,
                  precision=record.get("precision", DEFAULT_PRECISION),
                  flags=record.get("flags"))
