"""The public Keras namespace: every model, layer and preprocessor.

Importing this module registers every serializable class of the project
with Keras (package "bert_tf2"), so a saved `.keras` file of any of them
loads in a fresh process with no `custom_objects`:

  import keras
  import bert_tf2.models  # registers the classes (as `import keras_hub`)
  model = keras.saving.load_model("ner.keras")

Keras imports the modules named in a `.keras` file only for its own
packages; for any other package the classes must be registered first.
`load`, `load_predictor` and `text_model` read the task registry
(`bert_tf2.tasks`). Nothing below `bert_tf2.models` imports it.

  >>> from bert_tf2 import models
  >>> models.BertClassifier.__name__, models.text_model.__name__
  ('BertClassifier', 'text_model')
  >>> models.builder_of(models.BertTokenClassifier).__module__
  'bert_tf2.ner.text_model'
  >>> models.builder_of(models.BertClassifier).__module__
  'bert_tf2.common.text_model'
"""

# pylint: disable=unused-import,g-importing-member,g-bad-import-order
import inspect

import keras

from modeling import BertConfig
from modeling import BertModel
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.common.text_model import TextModel
from bert_tf2.common.pretrained import load_bert_model
from bert_tf2.predict.text import TextPredictor
from bert_tf2.predict import int8_task
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.embedding.text_model import SentenceTextModel
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.ner.crf import CRF
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.ner.text_model import TokenTextModel
from bert_tf2.pretraining.model import PretrainingModel
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.text_model import SquadTextModel
from bert_tf2.squad.text_model import squad_text_model
from bert_tf2.common import artifact
from bert_tf2.common import batch_parts
from bert_tf2.common import named_files
from bert_tf2.common import text_model as _generic
from bert_tf2.common import InputError
from bert_tf2 import tasks
from bert_tf2.runner import precision as precision_lib
from bert_tf2.runner import speed_defaults

# The precisions `text_model` offers (int8: `bert_tf2.predict.int8_task`).
TEXT_MODEL_PRECISIONS = ("auto", "float32", "bfloat16", "float16", "int8")

# The Adam learning rate `text_model` compiles with (the BERT paper's range).
DEFAULT_LEARNING_RATE = 2e-5

# The task names of a run's model.json (`bert_tf2.common.artifact`) and
# their task model classes: a read-only view of `bert_tf2.tasks`.
TASKS = tasks.model_classes()


def builder_of(cls):
  """The function that builds `cls`'s raw-string model (its registered
  task's, `bert_tf2.tasks`; else the generic one)."""
  entry = tasks.of_class(cls)
  return _generic.build if entry is None else entry.build


def task_of(cls):
  """The model.json task name of task model class `cls` (None: none)."""
  entry = tasks.of_class(cls)
  return None if entry is None else entry.name


def recorded_settings(directory, cls):
  """(settings, precision): the builder arguments a run's model.json
  records for `cls`, and its precision (({}, "float32") for a pretrained
  directory or a run_pretraining.py output_dir).

  Raises:
    InputError: the record is of another task, or damaged.
  """
  found = _record(directory)
  if found is None or found.task == "pretraining":
    return {}, artifact.DEFAULT_PRECISION
  if found.task != task_of(cls):
    raise InputError("%s: holds a %r model (model.json), not a %r one; "
                     "open it with bert_tf2.models.load(%r)"
                     % (directory, found.task, task_of(cls), directory))
  return dict(found.preprocessor, **found.model), found.precision


def text_model(cls, directory, max_seq_length=None, do_lower_case=None,
               precision=None, onnx_file=None, **kwargs):
  """The raw-string Keras model of task model class `cls`, from a pretrained
  directory (original or Hugging Face; see `bert_tf2.common.pretrained`)
  or a run's output_dir (its model.json gives every setting not given
  here: `bert_tf2.common.artifact`).

  E.g. `text_model(BertClassifier, "uncased_L-12_H-768_A-12", num_labels=2)`.
  max_seq_length None: the run's, else 128 (384 for SQuAD; the
  directory's for a sentence encoder). precision None: the run's
  (model.json's; float32 for a pretrained directory); or "float32",
  "bfloat16", "float16", "auto"
  (`speed_defaults.resolve_inference_precision`), or "int8" (a
  classifier, SQuAD: the task model run by ONNX Runtime,
  `bert_tf2.predict.int8_task`; onnx_file: its .onnx file, loaded where
  it exists, else written there). Returned compiled: Adam at
  DEFAULT_LEARNING_RATE, no loss (the task's own loss and metrics).
  """
  with artifact.read_once():
    settings, recorded = recorded_settings(directory, cls)
    explicit = dict(kwargs, max_seq_length=max_seq_length,
                    do_lower_case=do_lower_case)
    settings.update({k: v for k, v in explicit.items() if v is not None})
    build = builder_of(cls)
    check_arguments(cls, build, directory, settings)
    chosen = speed_defaults.resolve_inference_precision(
        precision, "%s text model" % cls.__name__,
        offered=TEXT_MODEL_PRECISIONS, recorded=recorded)
    if chosen == "int8" and not getattr(tasks.of_class(cls), "int8", False):
      raise InputError("precision='int8': not offered for %s (offered for %s: "
                       "its quality measured, docs/performance.md)" % (
                           cls.__name__, ", ".join(sorted(
                               t.name for t in map(tasks.get, tasks.names())
                               if t.int8))))
    if onnx_file and chosen != "int8":
      raise InputError("onnx_file=%s: an int8 model's file; give "
                       "precision='int8' with it" % onnx_file)
    weights = "float32" if chosen == "int8" else chosen  # ONNX from float32.
    if "precision" in _named_parameters(build):  # Builds in it itself.
      settings["precision"] = weights
    with precision_lib.policy_scope(weights):
      model = build(cls, directory, **settings)
    if chosen == "int8":
      model = int8_task.int8_text_model(model, onnx_file)
    model.compile(optimizer=keras.optimizers.Adam(DEFAULT_LEARNING_RATE))
    return model


def _record(directory):
  """The `artifact.Artifact` of `directory`'s model.json, or None."""
  return artifact.read(directory) if artifact.exists(directory) else None


# Keras' own constructor arguments a task model passes on.
_KERAS_ARGUMENTS = ("name", "dtype", "trainable")


def _named_parameters(fn, skip=("self", "cls", "directory", "bert_config")):
  """{name: inspect.Parameter} of fn's named parameters (no *args,
  **kwargs, none of `skip`)."""
  variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
  return {name: p for name, p in inspect.signature(fn).parameters.items()
          if p.kind not in variadic and name not in skip}


def accepted_arguments(cls, build):
  """(accepted, required): the argument names `build(cls, directory,
  **settings)` takes (its own, the task model's constructors, a builder's
  helpers), and those the task model needs that the builder does not
  supply itself."""
  own = _named_parameters(build)
  registered = tuple(tasks.model_classes().values())
  model = {}
  for klass in reversed(cls.__mro__):
    if "__init__" in vars(klass) and issubclass(klass, registered):
      model.update(_named_parameters(klass.__init__))
  entry = tasks.of_class(cls)
  helpers = entry.build_helpers if entry and entry.build is build else ()
  accepted = set(own) | set(model) | set(_KERAS_ARGUMENTS)
  for helper in helpers:
    accepted |= set(_named_parameters(helper))
  required = set()
  if (entry.requires_model_arguments if entry and entry.build is build
      else build is _generic.build):
    required = {name for name, p in model.items()
                if p.default is inspect.Parameter.empty}
  return accepted, required


def check_arguments(cls, build, directory, settings):
  """One InputError line unless `settings` (recorded in model.json and
  given) are arguments `cls`'s text model takes, with every one it needs.
  """
  accepted, required = accepted_arguments(cls, build)
  unknown = sorted(set(settings) - accepted)
  if unknown:
    raise InputError("%s: %s takes no argument %s (recorded in model.json "
                     "or given); it takes %s" % (
                         directory, cls.__name__, ", ".join(unknown),
                         ", ".join(sorted(accepted))))
  missing = sorted(required - set(settings))
  if missing:
    raise InputError("%s: %s needs %s (neither recorded in model.json nor "
                     "given)" % (directory, cls.__name__, ", ".join(missing)))


def load(path, task=None, allow_outside=False, threads="one_op_a_core",
         **kwargs):
  """The raw-string Keras model of `path`: a run's output_dir (its
  model.json says the task and every setting) or a pretrained directory
  with `task` and the head's arguments.

  E.g. `load("/tmp/ner_output")`,
  `load("uncased_L-12_H-768_A-12", task="classifier", num_labels=2)`.
  Arguments given override the recorded ones. Tasks: those of
  `bert_tf2.tasks`. A run's files must lie inside `path` and match the
  digests training recorded; allow_outside=True reads files linked from
  outside `path` (their digests are still checked).

  threads: "one_op_a_core" (default) sets a process whose TensorFlow has
  not started, and whose threads nobody chose, to one op a core
  (`batch_parts.one_op_a_core`: `predict` runs one part of each batch a
  core, the fastest layout for batches); "tensorflow" keeps TensorFlow's.
  """
  batch_parts.one_op_a_core(threads)
  with named_files.allowing_outside(allow_outside), artifact.read_once():
    return text_model(_task(path, task).model_class, path, **kwargs)


def _task(path, task):
  """The `tasks.Task` of `path` (its model.json's), checked against
  `task`."""
  found = _record(path)
  recorded = found.task if found is not None else None
  task = task or recorded
  if task is None:
    raise InputError("%s: no model.json (not a training run's output_dir); "
                     "give task= (one of %s) and the head's arguments"
                     % (path, ", ".join(sorted(tasks.names()))))
  entry = tasks.get(task)
  if recorded not in (None, "pretraining", task):
    raise InputError("%s: holds a %r model (model.json), not a %r one"
                     % (path, recorded, task))
  return entry


def load_predictor(path, task=None, batch_size=32, labels=None,
                   allow_outside=False, threads="one_op_a_core", **kwargs):
  """The Python predictor of `path` (as `load`): the task's
  `TextPredictor` (`bert_tf2.tasks`) of its text model.

  labels: a classifier's label names (default: the run's, else "0", "1",
  ...; NER: its tags, a model argument); other arguments as `load`.
  """
  batch_parts.one_op_a_core(threads)
  with named_files.allowing_outside(allow_outside), artifact.read_once():
    entry = _task(path, task)
    if entry.labels == tasks.MODEL_LABELS and labels is not None:
      kwargs["labels"] = labels  # NER's tags: its model's argument.
    model = text_model(entry.model_class, path, **kwargs)
    if entry.labels == tasks.PREDICTOR_LABELS:
      found = _record(path)
      if labels is None and found is not None:
        labels = found.outputs.get("labels")
      if labels is None:
        labels = [str(i) for i in range(model.task.num_labels)]
      labels = list(labels)
    return entry.text_predictor(model, batch_size, labels)
