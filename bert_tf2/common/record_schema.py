"""The schema of a run's model.json: every key typed and ranged, per task.

`check(path, record)` refuses, in one `InputError` line naming model.json,
the key, its value and what is allowed, anything a writer of this code
would not have written (an unknown key, a mistyped or out-of-range value).
`check_against` adds the checks that need the model's config and
`check_head` those that need the checkpoint's variable shapes.

Example:
  >>> record = {"format": "bert_tf2.model"}
  >>> try:
  ...   check("/run/model.json", dict(record, version=1, task="ner",
  ...         config="bert_config.json", sha256={},
  ...         preprocessor={"max_seq_length": True}))
  ... except InputError as e:
  ...   print(e)
  /run/model.json: "preprocessor.max_seq_length" is true; expected an integer in [3, 1000000]
"""

import json
import math
import re

from tokenization.errors import InputError

MAX_LABELS = 100000
# The precisions a run's answers can be made in (its --precision).
PRECISIONS = ("float32", "bfloat16", "float16")
_FLAG_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _show(value):
  """`value` as JSON writes it, cut to 60 characters."""
  try:
    text = json.dumps(value, sort_keys=True)
  except (TypeError, ValueError):
    text = repr(value)
  return text if len(text) <= 60 else text[:57] + "..."


def refuse(path, key, value, allowed):
  """The one line: `<path>: "<key>" is <value>; expected <allowed>`."""
  raise InputError('%s: "%s" is %s; expected %s'
                   % (path, key, _show(value), allowed))


# Rules: (fn(value) -> True when allowed, the words for what is).
def _is_int(value):
  return isinstance(value, int) and not isinstance(value, bool)


def integer(low, high):
  return (lambda v: _is_int(v) and low <= v <= high,
          "an integer in [%d, %d]" % (low, high))


def number(low, high):
  return (lambda v: (_is_int(v) or isinstance(v, float)) and
          math.isfinite(v) and low <= v <= high,
          "a number in [%g, %g]" % (low, high))


BOOLEAN = (lambda v: isinstance(v, bool), "true or false")
LENGTH = integer(3, 1000000)  # Then within max_position_embeddings.
STRIDE = integer(1, 1000000)  # Then within the length, per task.


def choice(*values):
  return (lambda v: isinstance(v, str) and v in values,
          "one of %s" % ", ".join(json.dumps(x) for x in values))


def _flag_value_ok(value):
  scalar = lambda v: v is None or isinstance(v, (str, bool, int)) or (
      isinstance(v, float) and math.isfinite(v))
  return scalar(value) or (isinstance(value, list) and
                           all(scalar(v) for v in value))


def _flags_ok(value):
  return isinstance(value, dict) and all(
      _FLAG_NAME.match(k) and _flag_value_ok(v) for k, v in value.items())


FLAGS = (_flags_ok, "an object of flag name: a JSON number, string, "
         "true/false, null or a list of them (the training script's "
         "flags)")


def _labels_ok(value):
  return (isinstance(value, list) and 0 < len(value) <= MAX_LABELS and
          all(isinstance(x, str) and x for x in value) and
          len(set(value)) == len(value))


LABELS = (_labels_ok, "a list of 1 to %d distinct non-empty strings"
          % MAX_LABELS)
REGRESSION_LABELS = (lambda v: v == [None] or _labels_ok(v),
                     "[null] (a regression) or " + LABELS[1])


def _transitions_ok(value):
  if value is None:
    return True
  if not (isinstance(value, list) and len(value) == 3):
    return False
  pairs, start, end = value
  flat = lambda v: isinstance(v, list) and all(isinstance(x, bool)
                                               for x in v)
  return (flat(start) and flat(end) and isinstance(pairs, list) and
          len(start) == len(end) == len(pairs) and
          all(flat(r) and len(r) == len(start) for r in pairs))


TRANSITIONS = (_transitions_ok, "null or [pairs [L][L], start [L], end [L]]"
               " of true/false")
HEADS = integer(1, MAX_LABELS)

# Per task: {section: {key: rule}}; every key optional, none other allowed.
# A task registered in `bert_tf2.tasks` adds its entry (`add_task`).
TASK_KEYS = {
    "classifier": {
        "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH,
                             long_text=choice("truncate", "sliding_window"),
                             doc_stride=STRIDE),
        "model": dict(num_labels=HEADS, multi_label=BOOLEAN,
                      threshold=number(0.0, 1.0)),
        "outputs": dict(labels=REGRESSION_LABELS, regression=BOOLEAN)},
    "ner": {
        "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH,
                             doc_stride=STRIDE),
        "model": dict(labels=LABELS, crf=BOOLEAN, allowed=TRANSITIONS),
        "outputs": {}},
    "squad": {
        "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH,
                             doc_stride=STRIDE,
                             max_query_length=integer(1, 1000000)),
        "model": dict(n_best_size=integer(1, 10000),
                      max_answer_length=integer(1, 1000000),
                      version_2_with_negative=BOOLEAN,
                      null_score_diff_threshold=number(-1e30, 1e30)),
        "outputs": {}},
    "multiple_choice": {
        "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH),
        "model": {},
        "outputs": dict(num_choices=integer(1, 1000))},
    "embedding": {
        "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH),
        "model": dict(pooling_mode=choice("mean", "cls", "max",
                                          "mean_sqrt_len", "pooled"),
                      normalize=BOOLEAN, scale=number(-1e6, 1e6)),
        "outputs": {}},
    "pretraining": {
        "preprocessor": dict(max_seq_length=LENGTH), "model": {},
        "outputs": {}},
}
SECTIONS = ("preprocessor", "model", "outputs")
# A registered task's default: casing and length only.
TEXT_TASK_KEYS = {
    "preprocessor": dict(do_lower_case=BOOLEAN, max_seq_length=LENGTH),
    "model": {}, "outputs": {}}


def add_task(name, keys):
  """Adds task `name`'s {section: {key: rule}} (every section of
  SECTIONS); the same name again must bring the same keys (ValueError)."""
  if set(keys) != set(SECTIONS):
    raise ValueError("task %r: record keys of sections %s; expected %s"
                     % (name, sorted(keys), list(SECTIONS)))
  if TASK_KEYS.setdefault(name, keys) != keys:
    raise ValueError("task %r: its record keys are registered already"
                     % name)
# The names (config, vocabulary, checkpoint) are checked by
# `artifact.check_name`, which knows the directory.
_TOP = dict(format=None, version=None, task=None, config=None,
            vocabulary=None, checkpoint=None, precision=choice(*PRECISIONS),
            flags=FLAGS,
            sha256=(lambda v: isinstance(v, dict) and all(
                isinstance(d, str) and _HEX64.match(d) for d in v.values()),
                    "an object of file name: sha256 hex digest"),
            **{s: (lambda v: isinstance(v, dict), "a JSON object")
               for s in SECTIONS})
REQUIRED = ("format", "version", "task", "config", "sha256")


def _check_keys(path, where, found, allowed):
  unknown = sorted(set(found) - set(allowed))
  if unknown:
    refuse(path, where + unknown[0], found[unknown[0]],
           "no such key (%s takes %s)" % (where.rstrip(".") or "the top "
                                          "level", ", ".join(sorted(allowed))
                                          or "none"))


def check(path, record, fmt="bert_tf2.model", version=1):
  """Refuses `record` (model.json at `path`) unless every key is one this
  task's writer writes, of its type and range (see module)."""
  for key, expected in (("format", fmt), ("version", version)):
    if type(record.get(key)) is not type(expected) or (  # pylint: disable=unidiomatic-typecheck
        record.get(key) != expected):
      refuse(path, key, record.get(key), json.dumps(expected) +
             " (rerun the training script on this --output_dir to "
             "rewrite it)")
  task = record.get("task")
  if not isinstance(task, str) or task not in TASK_KEYS:
    refuse(path, "task", task, "one of %s" % ", ".join(sorted(TASK_KEYS)))
  _check_keys(path, "", record, _TOP)
  for key in REQUIRED:
    if key not in record:
      refuse(path, key, None, "present (rerun the training script on this "
             "--output_dir to rewrite it)")
  for key, rule in sorted(_TOP.items()):
    if rule and key in record and not rule[0](record[key]):
      refuse(path, key, record[key], rule[1])
  for section, rules in sorted(TASK_KEYS[task].items()):
    found = record.get(section, {})
    _check_keys(path, section + ".", found, rules)
    for key, value in sorted(found.items()):
      if not rules[key][0](value):
        refuse(path, "%s.%s" % (section, key), value, rules[key][1])
  _check_consistent(path, record)


def _check_consistent(path, record):
  """The checks across keys that need no file."""
  model = record.get("model", {})
  outputs = record.get("outputs", {})
  labels = outputs.get("labels", model.get("labels"))
  if record["task"] == "classifier":
    regression = outputs.get("regression", False)
    heads = model.get("num_labels")
    if regression and heads not in (None, 1):
      refuse(path, "model.num_labels", heads, "1 (a regression)")
    if labels is not None and labels != [None] and heads is not None and (
        len(labels) != heads):
      refuse(path, "outputs.labels", labels, "%d labels (model.num_labels)"
             % heads)
    if labels == [None] and not regression:
      refuse(path, "outputs.labels", labels, LABELS[1])
  if record["task"] == "ner" and model.get("allowed") and labels and (
      len(model["allowed"][1]) != len(labels)):
    refuse(path, "model.allowed", model["allowed"], "transitions of the %d "
           "labels of model.labels" % len(labels))


def check_against(path, record, max_position_embeddings):
  """Lengths within the position table and strides within the length
  (after `check`; the config's max_position_embeddings given)."""
  pre = record.get("preprocessor", {})
  length = pre.get("max_seq_length")
  if length is not None and length > max_position_embeddings:
    refuse(path, "preprocessor.max_seq_length", length,
           "an integer in [3, %d] (the config's max_position_embeddings)"
           % max_position_embeddings)
  length = length or 128
  stride = pre.get("doc_stride")
  task = record["task"]
  if stride is not None and task == "ner" and stride > length - 2:
    refuse(path, "preprocessor.doc_stride", stride, "an integer in [1, %d] "
           "(max_seq_length - 2)" % (length - 2))
  query = pre.get("max_query_length")
  if query is not None and query + 3 >= length:
    refuse(path, "preprocessor.max_query_length", query, "an integer in "
           "[1, %d] (max_seq_length - 4)" % (length - 4))


def head_size(shapes):
  """The output size of the task head in checkpoint `shapes` ({name:
  shape}): the length of the top-level `output_bias` (the classifier's
  and NER's head; None: none)."""
  bias = shapes.get("output_bias")
  return bias[0] if bias is not None and len(bias) == 1 else None


def check_head(path, record, shapes):
  """The label count (classifier num_labels, NER labels) against the
  checkpoint's head (`head_size(shapes)`; nothing when it has none)."""
  size = head_size(shapes)
  if size is None:
    return
  task = record["task"]
  if task == "classifier":
    heads = record.get("model", {}).get("num_labels")
    if heads is not None and heads != size:
      refuse(path, "model.num_labels", heads, "%d (the checkpoint's head "
             "has %d outputs)" % (size, size))
  if task == "ner":
    labels = record.get("model", {}).get("labels")
    if labels is not None and len(labels) != size:
      refuse(path, "model.labels", labels, "%d labels (the checkpoint's "
             "head has %d outputs)" % (size, size))
