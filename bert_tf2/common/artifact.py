"""A run's output_dir is its model: `model.json` and the files it names.

A training script writes, into its --output_dir, everything that rebuilds
its model exactly (as keras-hub's preset directory: config + task settings
+ preprocessor settings + assets + weights, opened by `from_preset(dir)`):

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
   "sha256": {"bert_config.json": "...", "vocab.txt": "..."},
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
"model" the task model's constructor arguments (the head's settings:
num_labels, multi_label, crf and its `allowed` transitions, pooling_mode
and normalize, ...), "outputs" how outputs are named and decoded (labels,
SQuAD's n-best settings), "precision" the one its answers were made in,
which every loader answers in unless asked another
(`bert_tf2.runner.speed_defaults`). "flags" holds the training script's
own flags that define the run, which the script reads back when it
predicts, evaluates or exports on the finished run
(`bert_tf2.finetune.recorded_flags`); the loaders do not read it. `bert_tf2.models.load(dir)` passes the three to
the task's text-model builder (`bert_tf2.models.text_model`), so recorded
and explicit arguments are the same words. A pretrained directory
(bert_config.json + vocab.txt + bert_model.ckpt, or Hugging Face's) is the
same thing without model.json: no head, the head's arguments given; so
is a run_pretraining.py output_dir (task "pretraining": config, the
vocabulary when given, the checkpoint).

Names in model.json are plain file names inside the directory (the
checkpoint alone may sit in best/); anything else ("../x", an absolute
path, another subdirectory) is refused in one line before any file is
opened, and so is a file that is not a regular file (a FIFO would hang the
read).

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
import hashlib
import json
import os
import re
import stat

import tensorflow as tf

from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError

FILE = "model.json"
FORMAT = "bert_tf2.model"
VERSION = 1
CONFIG_FILE = "bert_config.json"
VOCAB_FILE = "vocab.txt"
TASKS = ("classifier", "ner", "squad", "multiple_choice", "embedding",
         "pretraining")
# A plain file name; the checkpoint may also be best/<name> (the kept best).
_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=+-]*$")
_SECTIONS = ("preprocessor", "model", "outputs")
# The precisions a run's answers can be made in (its --precision).
PRECISIONS = ("float32", "bfloat16", "float16")
DEFAULT_PRECISION = "float32"  # Records without the key.


class Artifact(collections.namedtuple(
    "Artifact", ["directory", "task", "config_file", "vocab_file",
                 "checkpoint", "preprocessor", "model", "outputs",
                 "precision", "flags"])):
  """What model.json says, with paths resolved inside `directory`
  (vocab_file None: none recorded, e.g. pretraining; checkpoint None: the
  latest of the directory; precision: the one the run's answers were made
  in, one of PRECISIONS; flags: the training script's, or None)."""

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


def check_regular(path, what):
  """Raises InputError unless `path` is a regular file (checked without
  opening it: a FIFO or device would block or stream)."""
  if "://" in path:  # Object stores hold plain objects only.
    if not tf.io.gfile.exists(path):
      raise InputError("%s: %s not found" % (path, what))
    return
  try:
    mode = os.stat(path).st_mode
  except OSError:
    raise InputError("%s: %s not found" % (path, what)) from None
  if not stat.S_ISREG(mode):
    raise InputError("%s: %s is not a regular file" % (path, what))


def read_bytes(path, what):
  """The bytes of regular file `path` (see check_regular)."""
  check_regular(path, what)
  with tf.io.gfile.GFile(path, "rb") as f:
    return f.read()


def _digest(data):
  return hashlib.sha256(data).hexdigest()


def write(output_dir, task, bert_config_file, vocab_file=None,
          preprocessor=None, model=None, outputs=None, checkpoint=None,
          precision=DEFAULT_PRECISION, flags=None):
  """Writes output_dir/{bert_config.json,vocab.txt,model.json}, each
  atomically, model.json last (so a model.json always names complete
  copies).

  Args:
    output_dir: the run's output_dir.
    task: one of TASKS.
    bert_config_file, vocab_file: copied into output_dir (vocab_file None:
      none, e.g. pretraining).
    preprocessor, model, outputs: JSON-serialisable dicts (see module).
    checkpoint: the answer's checkpoint prefix, inside output_dir or its
      best/ (None: the latest at load time).
    precision: the precision the run's answers are made in (one of
      PRECISIONS: the run's --precision).
    flags: the training script's flags that define the run ({name:
      JSON value}: `bert_tf2.finetune.recorded_flags`), or None.
  """
  if task not in TASKS:
    raise ValueError("task %r: expected one of %s" % (task, TASKS))
  if precision not in PRECISIONS:
    raise ValueError("precision %r: expected one of %s"
                     % (precision, PRECISIONS))
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
    record["sha256"][name] = _digest(text.encode("utf-8"))
  if checkpoint:
    record["checkpoint"] = relative_checkpoint(output_dir, checkpoint)
  for name, section in zip(_SECTIONS, (preprocessor, model, outputs)):
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
  atomically); nothing when there is no model.json."""
  path = os.path.join(output_dir, FILE)
  if not tf.io.gfile.exists(path):
    return
  record = _load_json(path)
  record["checkpoint"] = relative_checkpoint(output_dir, checkpoint)
  atomic_write_text(path, json.dumps(record, indent=2, sort_keys=True) + "\n")


def _load_json(path):
  data = read_bytes(path, "the model record")
  try:
    record = json.loads(data.decode("utf-8"))
  except (ValueError, UnicodeDecodeError) as e:  # Empty, cut short, garbage.
    raise InputError("%s is damaged: not valid JSON (%s); rerun the "
                     "training script on this --output_dir to rewrite it"
                     % (path, (str(e).splitlines() or ["empty"])[0])) from None
  if not isinstance(record, dict):
    raise InputError("%s is damaged: not a JSON object; rerun the training "
                     "script on this --output_dir to rewrite it" % path)
  return record


def read(directory):
  """The `Artifact` of directory/model.json, its copies checked.

  Raises:
    InputError: no model.json, a damaged one, a name that is not a plain
      file name inside the directory, a file that is not a regular file,
      or a copy that is not the one training wrote.
  """
  path = os.path.join(directory, FILE)
  if not tf.io.gfile.exists(path):
    raise InputError("%s: no %s (written by the training scripts)"
                     % (directory, FILE))
  record = _load_json(path)
  if record.get("format") != FORMAT or record.get("task") not in TASKS:
    raise InputError("%s is damaged: not a %s record (format %r, task %r);"
                     " rerun the training script on this --output_dir to "
                     "rewrite it" % (path, FORMAT, record.get("format"),
                                     record.get("task")))
  if record.get("version") != VERSION:
    raise InputError("%s: version %r; this code reads version %d"
                     % (path, record.get("version"), VERSION))
  # Every name is checked before any file is opened.
  config_file = check_name(directory, record.get("config"), "config")
  vocab_file = (check_name(directory, record["vocabulary"], "vocabulary")
                if "vocabulary" in record else None)
  checkpoint = (check_name(directory, record["checkpoint"], "checkpoint",
                           subdirs=("best",))
                if record.get("checkpoint") is not None else None)
  sections = []
  for name in _SECTIONS:
    section = record.get(name, {})
    if not isinstance(section, dict):
      raise InputError("%s is damaged: %r is not a JSON object"
                       % (path, name))
    sections.append(section)
  digests = record.get("sha256") or {}
  for file_path in (config_file, vocab_file):
    if file_path is None:
      continue
    data = read_bytes(file_path, "the copy training wrote")
    digest = digests.get(os.path.basename(file_path))
    if digest is not None and _digest(data) != digest:
      raise InputError("%s is damaged (not the copy training wrote: "
                       "emptied, cut short or overwritten); rerun the "
                       "training script on this --output_dir to rewrite "
                       "it" % file_path)
  flags = record.get("flags")
  if flags is not None and not isinstance(flags, dict):
    raise InputError("%s is damaged: \"flags\" is not a JSON object"
                     % path)
  precision = record.get("precision", DEFAULT_PRECISION)
  if precision not in PRECISIONS:
    raise InputError("%s: \"precision\" is %r; expected one of %s"
                     % (path, precision, ", ".join(PRECISIONS)))
  if checkpoint is not None:
    check_regular(checkpoint + ".index", "the recorded checkpoint's index")
  return Artifact(directory, record["task"], config_file, vocab_file,
                  checkpoint, *sections, precision=precision, flags=flags)
