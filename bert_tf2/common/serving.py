"""`TextServer`: every task's raw-text SavedModel, built from its two homes.

The SavedModel module is the same for every task, built from its
preprocessor, its model and its outputs:

  text signature  texts (named, checked: `raw_text_serving`)
                  -> preprocessor(texts)                features, one row
                                                        per window
                  -> model(features) in chunks           logits
                  -> preprocessor.merge_windows          one row per text
                  -> outputs(features, logits, texts)    the signature's dict
  ids signature   input_ids, input_mask, segment_ids [batch, max_seq_length]
                  -> model in chunks -> outputs(features, logits, None)

The module records the precision its model computes in (`precision`, a
string variable), so `tf.saved_model.load(d).precision` says it.

`outputs` and `signatures` are the task's; `write_saved_model(server,
export_dir)` is the one writer of every task's SavedModel. The model runs
`chunk_size` rows at a time (`raw_text_serving.call_in_chunks`); with
trim_padding each chunk is cut to its longest sequence.

Example (a "model" that counts each text's real tokens):
  >>> from bert_tf2.common.preprocessor import BertPreprocessor
  >>> pre = BertPreprocessor(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"],
  ...                        max_seq_length=8)
  >>> count = lambda f, training: tf.reduce_sum(f["input_mask"], 1)
  >>> server = TextServer(pre, count, lambda f, n, texts: {"tokens": n},
  ...                     signatures={"serving_default": ("text",),
  ...                                 "serving_ids": IDS})
  >>> serve = server.signature_functions()["serving_default"]
  >>> serve(tf.constant(["a a", "a"]))["tokens"].numpy().tolist()
  [4, 3]
  >>> sorted(server.signature_functions())
  ['serving_default', 'serving_ids']
"""

import tensorflow as tf

from bert_tf2.common import any_shape
from bert_tf2.common import batch_parts
from bert_tf2.common import padding
from bert_tf2.common import raw_text_serving
from bert_tf2.common import saved_model
from modeling import layers

MODEL_INPUTS = ("input_ids", "input_mask", "segment_ids")

# A `signatures` entry for the ids signature (`TextServer.ids_signature`).
IDS = "ids"


class TextServer(tf.Module):
  """A task's preprocessor, model and outputs; makes its signatures."""

  def __init__(self, preprocessor, model, outputs, signatures=None,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE,
               trim_padding=True, check=None, ids_outputs=None,
               extra_files=None, precision=None, name="text_server"):
    """Args:
      preprocessor: the task's Keras preprocessor layer: its raw inputs
        (one tf.string Tensor, or a tuple of them) -> features dict, whose
        MODEL_INPUTS are int32 [rows, ..., max_seq_length]; a windowing
        preprocessor adds its own keys and `merge_windows(features,
        logits)`. Its `max_seq_length` sets the ids signature's.
      model: the task's Keras model (or any fn(features, training)):
        MODEL_INPUTS -> logits, a Tensor or a nest [rows, ...].
      outputs: fn(features, logits, texts) -> dict, the signature's
        outputs (texts: the checked raw inputs; None for the ids one).
      signatures: {signature name: tuple of the raw inputs' names (the
        preprocessor's inputs, in its order), or IDS}: what
        `write_saved_model` writes (default: serving_default of one
        "text").
      check: the text signatures' input check (see `text_signature`).
      ids_outputs: the ids signature's outputs (default: `outputs`).
      extra_files: {file name: text} written beside the SavedModel.
      chunk_size: rows per model call.
      trim_padding: cut each chunk to its longest sequence.
      precision: the precision `model` computes in (None: a Keras model's
        compute dtype, float32 for a function).
    """
    super().__init__(name=name)
    self.preprocessor = preprocessor
    self.model = model
    self._outputs = outputs
    self.chunk_size = int(chunk_size)
    self.trim_padding = bool(trim_padding)
    self.max_seq_length = int(preprocessor.max_seq_length)
    self.signature_inputs = dict(signatures or {"serving_default": ("text",)})
    self._check = check
    self._ids_outputs = ids_outputs
    self.extra_files = dict(extra_files or {})
    # Made a variable by `write_saved_model` (not here: a text model
    # builds a server inside its traced call).
    policy = getattr(model, "dtype_policy", None)
    self.precision_name = precision or str(
        getattr(policy, "compute_dtype", None) or "float32")

  def logits(self, features, model_fn=None):
    """The model on features' MODEL_INPUTS, chunk_size rows per call
    (model_fn: `model_function()`'s, else the model inlined)."""
    return raw_text_serving.call_in_chunks(
        model_fn or self._chunk_logits,
        {k: features[k] for k in MODEL_INPUTS}, self.chunk_size)

  def model_function(self):
    """`_chunk_logits` as one graph function for any rows (`any_shape`),
    for the signatures to share (in their closures: a module attribute
    would be traced once more)."""
    return any_shape.any_shape_function(self._chunk_logits)

  def _chunk_logits(self, inputs):
    if self.trim_padding:  # The chunk's longest sequence (same outputs).
      inputs = padding.trim_to_longest(inputs)
    # Below float32 in parts side by side (`batch_parts`; same outputs).
    return batch_parts.in_parts(
        lambda part: self.model(part, training=False), inputs,
        batch_parts.served_parts(self.precision_name))

  def answer(self, texts, model_fn=None):
    """Checked raw inputs -> the outputs dict (in graph)."""
    features = self.preprocessor(texts)
    logits = self.logits(features, model_fn)
    merge = getattr(self.preprocessor, "merge_windows", None)
    if merge is not None:
      logits = merge(features, logits)
    return self._outputs(features, logits, texts)

  def text_signature(self, names, check=None, model_fn=None):
    """A tf.function of raw strings named `names` (the preprocessor's
    inputs, in its order) -> outputs.

    check: fn(*texts) -> the preprocessor's input, checked; default
    `raw_text_serving.check_text_inputs`.
    model_fn: a `model_function()` to call (default: the model inlined).
    """
    names = list(names)

    def serve(*texts):
      if check is not None:
        return self.answer(check(*texts), model_fn)
      checked = raw_text_serving.check_text_inputs(*texts, names=names)
      return self.answer(checked[0] if len(checked) == 1 else checked,
                         model_fn)
    return tf.function(serve, input_signature=[
        tf.TensorSpec(None, tf.string, name=n) for n in names], autograph=False)

  def ids_signature(self, outputs=None, model_fn=None):
    """A tf.function of input_ids, input_mask, segment_ids int32
    [batch, max_seq_length] -> outputs (default: the text signature's).
    model_fn: a `model_function()` to call (default: the model inlined)."""
    outputs = outputs or self._outputs

    def serve(input_ids, input_mask, segment_ids):
      features = {"input_ids": input_ids, "input_mask": input_mask,
                  "segment_ids": segment_ids}
      return outputs(features, self.logits(features, model_fn), None)
    return tf.function(serve, input_signature=[
        tf.TensorSpec([None, self.max_seq_length], tf.int32, name=n)
        for n in MODEL_INPUTS], autograph=False)

  def signature_functions(self):
    """{name: tf.function} of `signatures`, as the SavedModel holds them
    (one `model_function()` shared by all)."""
    model_fn = self.model_function()
    return {name: (self.ids_signature(self._ids_outputs, model_fn)
                   if inputs == IDS
                   else self.text_signature(inputs, self._check, model_fn))
            for name, inputs in self.signature_inputs.items()}


def write_saved_model(server, export_dir, what="export_dir"):
  """Writes a task's `TextServer` as its raw-string SavedModel atomically
  (`saved_model.save_atomically`); returns export_dir.

  what: the name error messages give export_dir (e.g. "--export_dir").
  """
  server.precision = tf.Variable(server.precision_name, trainable=False,
                                 name="precision")
  # Below float32 the dense weights are constants (see `frozen_weights`).
  with layers.ConstantKernels():
    return saved_model.save_atomically(
        server, export_dir, server.signature_functions(), what=what,
        extra_files=server.extra_files or None)


def named_outputs(model, outputs):
  """`model`'s outputs as a signature's dict: a dict as it is, else
  {the model's first `serving_output_names` (else "outputs"): outputs}."""
  if isinstance(outputs, dict):
    return dict(outputs)
  names = getattr(model, "serving_output_names", None) or ("outputs",)
  return {names[0]: outputs}


def server(model, preprocessor, **unused_settings):
  """The SavedModel module of a task without a server of its own:
  serving_default(text) -> `named_outputs` of the model. Every task's
  `server(model, preprocessor, **settings)` (settings: the run's
  model.json "model" and "outputs" sections) takes the settings it serves
  with and leaves the others."""
  return TextServer(
      preprocessor, model,
      lambda features, outputs, texts: named_outputs(model, outputs),
      signatures={"serving_default": ("text",)})


def exporter(task_server, **settings):
  """`export(text_model, export_dir)` of a predictor: `task_server` (a
  task's `server`) of the text model, with its `serving_settings()` at
  export and `settings` (a classifier predictor's labels)."""
  def export(model, export_dir):
    return write_saved_model(task_server(
        model.task, model.preprocessor,
        **dict(model.serving_settings(), **settings)), export_dir)
  return export
