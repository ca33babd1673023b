"""The task registry: one entry per fine-tuning task, all the generic code
needs to know of it.

A `Task` says, for the task name a run's model.json records ("task"),
what `bert_tf2.models` needs of it. Adding a task is its package plus
one `register(task(...))` line (a user's anywhere, before `load`).

  >>> from bert_tf2 import tasks
  >>> tasks.get("ner").model_class.__name__
  'BertTokenClassifier'
  >>> tasks.of_class(tasks.get("ner").model_class).name  # Not classifier.
  'ner'
  >>> sorted(set(tasks.names()) & {"classifier", "ner", "squad",
  ...                                "multiple_choice", "embedding"})
  ['classifier', 'embedding', 'multiple_choice', 'ner', 'squad']
"""

import collections
import functools
import types

from bert_tf2.classifier import predictor as classifier_predictor
from bert_tf2.classifier import serving as classifier_serving
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.common import record_schema
from bert_tf2.common import serving
from bert_tf2.common import text_model as generic_text_model
from bert_tf2.embedding import predictor as embedding_predictor
from bert_tf2.embedding import serving as embedding_serving
from bert_tf2.embedding import text_model as embedding_text_model
from bert_tf2.embedding.encoder import SentenceEncoder
from bert_tf2.multiple_choice import preprocessor as multiple_choice_text_model
from bert_tf2.multiple_choice import serving as multiple_choice_serving
from bert_tf2.multiple_choice.model import BertMultipleChoice
from bert_tf2.multiple_choice.predictor import MultipleChoicePredictor
from bert_tf2.ner import text_model as ner_text_model
from bert_tf2.ner import serving as ner_serving
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.ner.predictor import EntityTagger
from bert_tf2.predict.text import TextPredictor
from bert_tf2.squad import predictor as squad_predictor
from bert_tf2.squad import serving as squad_serving
from bert_tf2.squad import text_model as squad_text_model
from bert_tf2.squad.model import SquadModel

# Where `load_predictor(path, labels=...)` puts labels: the predictor's
# (named answers) or the task model's constructor argument (NER's tags).
PREDICTOR_LABELS = "predictor"
MODEL_LABELS = "model"


class Task(collections.namedtuple("Task", [
    "name", "model_class", "build", "answers", "server", "predictor",
    "labels", "record", "build_helpers", "requires_model_arguments",
    "int8"])):
  """One task: what `bert_tf2.models` needs of it.

  Fields:
    name: model.json's "task".
    model_class: the task model (model.json's "model": its arguments).
    build: `build(cls, directory, max_seq_length=..., do_lower_case=...,
      **kwargs)` -> its raw-string model (default:
      `bert_tf2.common.text_model.build`).
    answers: the `TextPredictor`'s `answers(model, x, batch_size)` -> one
      dict per example; with PREDICTOR_LABELS it takes the label names
      first. Default: `model_answers`.
    server: the task's `server(task_model, preprocessor, **settings)`,
      which builds its raw-string SavedModel (default
      `bert_tf2.common.serving.server`).
    predictor: `predictor(model, batch_size)` -> the Python predictor, in
      place of a `TextPredictor` of answers and export.
    labels: PREDICTOR_LABELS or MODEL_LABELS (see above; the default).
    record: {section: {key: rule}} of model.json (`record_schema`;
      default: the schema's entry for the name, else casing and length).
    build_helpers: functions `build` passes its arguments on to.
    requires_model_arguments: the model's arguments without a default
      must be given or recorded (default: when `build` is the generic one).
    int8: precision "int8" is offered (only where its quality was
      measured, docs/performance.md).
  """

  def text_predictor(self, model, batch_size, labels=None):
    """The Python predictor of text model `model` (see fields)."""
    if self.predictor is not None:
      return self.predictor(model, batch_size)
    answers, settings = self.answers, {}
    if self.labels == PREDICTOR_LABELS:
      answers = functools.partial(answers, labels)
      settings["labels"] = labels
    return TextPredictor(model, answers,
                         serving.exporter(self.server, **settings),
                         batch_size)


def task(name, model_class, build=generic_text_model.build, answers=None,
         server=serving.server, predictor=None, labels=MODEL_LABELS,
         record=None, build_helpers=(), requires_model_arguments=None,
         int8=False):
  """A `Task` with the defaults above (checked: one line on a bad one)."""
  if labels not in (PREDICTOR_LABELS, MODEL_LABELS):
    raise ValueError("task %r: labels=%r; expected %r or %r"
                     % (name, labels, PREDICTOR_LABELS, MODEL_LABELS))
  if requires_model_arguments is None:
    requires_model_arguments = build is generic_text_model.build
  return Task(name, model_class, build, answers or model_answers,
              server, predictor, labels, record,
              tuple(build_helpers), requires_model_arguments, bool(int8))


def model_answers(model, x, batch_size):
  """One dict per example of x: text model `model`'s outputs, named as
  its SavedModel names them (`serving.named_outputs` of its task model)."""
  outputs = serving.named_outputs(
      model.task, model.predict(x, batch_size=batch_size, verbose=0))
  count = len(next(iter(outputs.values())))
  return [{k: v[i] for k, v in outputs.items()} for i in range(count)]


_BY_NAME = {}
# {name: task model class}: `bert_tf2.models.TASKS` (a read-only view).
MODEL_CLASSES = {}


def register(entry):
  """Adds task `entry` (a `Task`); its record keys join the schema of
  model.json (`record_schema.TASK_KEYS`). Registering a name again with
  another entry raises ValueError."""
  if entry.name in _BY_NAME and _BY_NAME[entry.name] != entry:
    raise ValueError("task %r is registered already" % entry.name)
  keys = entry.record
  if keys is None:
    keys = record_schema.TASK_KEYS.get(entry.name,
                                       record_schema.TEXT_TASK_KEYS)
  record_schema.add_task(entry.name, keys)
  _BY_NAME[entry.name] = entry
  MODEL_CLASSES[entry.name] = entry.model_class
  return entry


def names():
  """The registered task names."""
  return tuple(_BY_NAME)


def model_classes():
  """A read-only {name: task model class} of the registered tasks (live)."""
  return types.MappingProxyType(MODEL_CLASSES)


def get(name):
  """The `Task` named `name`.

  Raises:
    InputError: no such task (one line naming the registered ones).
  """
  if name not in _BY_NAME:
    raise InputError("task=%r: expected one of %s%s" % (
        name, ", ".join(sorted(_BY_NAME)),
        " (a pretraining run: give task= and the head's arguments)"
        if name == "pretraining" else ""))
  return _BY_NAME[name]


def of_class(cls):
  """The `Task` of task model class `cls`: of the nearest class along its
  hierarchy that is registered (NER's, not the classifier it extends);
  None: none."""
  by_class = {entry.model_class: entry for entry in _BY_NAME.values()}
  for klass in cls.__mro__:
    if klass in by_class:
      return by_class[klass]
  return None


def _multiple_choice_predictor(model, batch_size):
  return MultipleChoicePredictor(model, batch_size=batch_size)


# The project's tasks, one line each.
register(task("classifier", BertClassifier,
              answers=classifier_predictor.text_answers,
              server=classifier_serving.server,
              labels=PREDICTOR_LABELS, int8=True))
register(task("ner", BertTokenClassifier, build=ner_text_model.build,
              server=ner_serving.server, predictor=EntityTagger))
register(task("multiple_choice", BertMultipleChoice,
              build=multiple_choice_text_model.build,
              server=multiple_choice_serving.server,
              predictor=_multiple_choice_predictor,
              requires_model_arguments=True))
register(task("embedding", SentenceEncoder, build=embedding_text_model.build,
              answers=embedding_predictor.text_answers,
              server=embedding_serving.server,
              build_helpers=[SentenceEncoder.from_dir]))
register(task("squad", SquadModel, build=squad_text_model.build,
              answers=squad_predictor.text_answers,
              server=squad_serving.server,
              build_helpers=[squad_text_model.squad_text_model], int8=True))
