"""`TextPredictor`: a task's raw-string Keras model, batched, named answers.

`bert_tf2.models.load_predictor(output_dir)` returns one: the text model
of `bert_tf2.models.load(output_dir)` (`model`) plus `predict(x)`, one
dict of named answers per example (the task's `answers` of the text
model's outputs, x read by its `examples`), and `export(export_dir)`, the
task's raw-string SavedModel. The task supplies both functions.

Example:
  >>> p = TextPredictor(None, lambda m, x, n: [{"n": len(t)} for t in x],
  ...                   lambda m, d: d)
  >>> p.predict(["ab", "c"])
  [{'n': 2}, {'n': 1}]
  >>> p.predict([])
  []
"""

import inspect
import os

import tensorflow as tf

import modeling
from bert_tf2.common import InputError
from bert_tf2.common import named_files
from bert_tf2.common import text_inputs
from bert_tf2.common.text_model import TextModel
from bert_tf2.finetune import assets as assets_lib
from bert_tf2.predict import int8_task
from bert_tf2.runner import precision as precision_lib
from bert_tf2.runner import speed_defaults


class TextPredictor(object):
  """A task's text model with batching and named answers (see module).

  A task's predictor of a run's files subclasses it, with `kind`
  (model.json's task) for `from_output_dir`.
  """

  kind = None
  # The precisions a predictor of a run's files offers (int8: the task
  # model run by ONNX Runtime, `int8_task`).
  precisions = speed_defaults.INFERENCE_PRECISIONS

  def __init__(self, model, answers, export, batch_size=32):
    """Args: model: the task's raw-string Keras model; answers: fn(model,
    x, batch_size) -> list of dicts, one per example, through the model's
    `predict` (which orders the batches); export: fn(model, export_dir) ->
    export_dir; batch_size: examples per model call."""
    self.model = model
    self._answers = answers
    self._export = export
    self.batch_size = int(batch_size)

  def predict(self, x, batch_size=None):
    """One dict of named answers per example of x (the task's inputs; a
    bad item is one InputError line naming it)."""
    return self._checked_answers(x, batch_size, "x")

  def _checked_answers(self, x, batch_size, what):
    """`predict`, a bad item named as `what`[i] (the caller's argument)."""
    if text_inputs.is_empty(x):
      return []
    examples = getattr(self.model, "examples", None)  # The task's contract.
    if examples is not None:
      x = examples(x, what)
    elif not isinstance(x, (tf.data.Dataset, tf.Tensor)):
      x = text_inputs.check_nested_texts(x, what=what)
    return self._answers(self.model, x, int(batch_size or self.batch_size))

  def export(self, export_dir):
    """Writes the task's raw-string SavedModel atomically; returns it
    (an int8 model has none: one InputError line)."""
    int8_task.check_exportable(self.model, "export_dir=%s" % export_dir)
    return self._export(self.model, export_dir)

  def export_onnx(self, path, int8=True):
    """Writes the task model (token ids in, no tokenizer) as an ONNX file
    (`int8_task.export_onnx`; int8=True: dense weights int8); returns path.
    """
    return int8_task.export_onnx(self.model, path, int8=int8)

  @classmethod
  def from_output_dir(cls, output_dir, best=False, allow_outside=False,
                      **overrides):
    """The predictor of a training output_dir (`assets_lib.load_assets`),
    for a task's predictor class (`kind`).

    Args:
      output_dir: the training run's output_dir.
      best: load output_dir/best/ (the kept best checkpoint) instead of the
        recorded one (else the latest).
      allow_outside: read files that lead outside output_dir (symlinks
        to a shared checkpoint); by default each is refused in one line.
      **overrides: constructor arguments replacing the saved ones (e.g.
        batch_size, precision, or checkpoint).
    """
    if cls.kind is None:
      raise InputError("%s.from_output_dir: use bert_tf2.models."
                       "load_predictor(%r)" % (cls.__name__, output_dir))
    with named_files.allowing_outside(allow_outside):
      info = assets_lib.load_assets(output_dir, cls.kind)
      info.pop("kind")
      if best or "checkpoint" not in info:
        info["checkpoint"] = assets_lib.checkpoint_of(output_dir, best=best)
    info.update(overrides)
    # Settings the constructor does not take are implied by those it does.
    accepted = inspect.signature(cls.__init__).parameters
    return cls(**{k: v for k, v in info.items() if k in accepted})


def int8_precision(precision, int8):
  """The precision of a predictor given the older `int8=` argument too:
  int8 True or an .onnx path means "int8".

  Raises:
    InputError: int8 given with another precision.

    >>> int8_precision(None, True), int8_precision("bfloat16", False)
    ('int8', 'bfloat16')
  """
  if not int8:
    return precision
  if precision not in (None, "auto", "int8"):
    raise InputError("int8=%r with precision=%r: give one of them"
                     % (int8, precision))
  return "int8"


def onnx_file_of(int8, int8_dir):
  """The .onnx file of the older arguments: int8 a path (an earlier
  `export_onnx`: loaded), else int8_dir/model_int8.onnx (kept there), else
  None (temporary).

  Raises:
    InputError: int8 names a file that does not exist.
  """
  if isinstance(int8, str):
    if not tf.io.gfile.exists(int8):
      raise InputError("int8=%s: ONNX file not found" % int8)
    return int8
  return os.path.join(int8_dir, "model_int8.onnx") if int8_dir else None


def checked_config(bert_config_file, preprocessor):
  """The `modeling.BertConfig` of bert_config_file, checked against the
  preprocessor's max_seq_length and vocabulary.

  Raises:
    InputError: a bad file, too long a sequence, another vocabulary size.
  """
  config = modeling.BertConfig.from_json_file(bert_config_file)
  modeling.check_sequence_length(config, preprocessor.max_seq_length)
  modeling.check_vocab_size(config, len(preprocessor.vocabulary))
  return config


def checkpoint_model(preprocessor, build_task, checkpoint, what,
                     precision=None, recorded_precision="float32",
                     onnx_file=None, text_model=TextModel, trim_padding=True,
                     **model_kwargs):
  """(text model, precision): `text_model(preprocessor, build_task(),
  **model_kwargs)` with the weights of `checkpoint`, in the precision
  asked (None: the recorded one;
  `speed_defaults.resolve_inference_precision`, logged as `what`); int8:
  `int8_task.int8_text_model(model, onnx_file)`; trim_padding False:
  every batch at max_seq_length.

  Raises:
    InputError: a precision not offered, or a checkpoint that does not fit.
  """
  chosen = speed_defaults.resolve_inference_precision(
      precision, what, offered=speed_defaults.INFERENCE_PRECISIONS,
      recorded=recorded_precision)
  with precision_lib.policy_scope("float32" if chosen == "int8" else chosen):
    task = build_task()
    model = text_model(preprocessor, task, **model_kwargs)
  modeling.init_from_checkpoint(task, checkpoint,
                                flag="predictor checkpoint")
  if not trim_padding:
    model.trims_padding = False
  if chosen == "int8":
    model = int8_task.int8_text_model(model, onnx_file)
  return model, chosen
