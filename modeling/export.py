"""`model.export(dir)` for the project's Keras models (TF SavedModel).

Keras infers an export signature for a subclassed model from the shapes of
its first `build()` call; these models create their variables in the
constructor (no `build()` call), take int32 feature dicts (Keras would
guess float32) and return nested outputs (`BertModel`'s "encoder_outputs"
is a list, which a SavedModel signature cannot return). `Exportable` gives
such a model a default int32 signature and flattens its outputs:

  a Tensor                 -> {"output_0": Tensor}
  a tuple/list of Tensors  -> {"output_0": ..., "output_1": ...}
                              (or the class's `serving_output_names`)
  a dict                   -> the same keys; a list value "x" of Tensors
                              becomes "x_0", "x_1", ...

Example:
  >>> import tempfile, tensorflow as tf, modeling
  >>> cfg = modeling.BertConfig(vocab_size=30, hidden_size=8,
  ...     num_hidden_layers=2, num_attention_heads=2, intermediate_size=16)
  >>> path = tempfile.mkdtemp() + "/bert"
  >>> modeling.BertModel(cfg).export(path, verbose=False)
  >>> served = tf.saved_model.load(path).signatures["serving_default"]
  >>> out = served(input_ids=tf.constant([[5, 6, 7]]),
  ...              input_mask=tf.constant([[1, 1, 1]]),
  ...              token_type_ids=tf.constant([[0, 0, 0]]))
  >>> out["pooled_output"].shape, out["encoder_outputs_1"].shape
  (TensorShape([1, 8]), TensorShape([1, 3, 8]))
"""

import keras
import tensorflow as tf


def int_features_signature(names, rank=2):
  """{name: int32 TensorSpec [None] * rank} for each name."""
  return {name: tf.TensorSpec([None] * rank, tf.int32, name=name)
          for name in names}


def flatten_outputs(outputs, names=None):
  """Model outputs -> flat {name: Tensor} (see the module docstring).

  Args:
    outputs: a Tensor, a tuple/list of Tensors or a dict.
    names: optional names of a Tensor / tuple output, in order.
  """
  if isinstance(outputs, dict):
    flat = {}
    for key, value in outputs.items():
      if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
          flat["%s_%d" % (key, i)] = item
      else:
        flat[key] = value
    return flat
  if not isinstance(outputs, (list, tuple)):
    outputs = [outputs]
  names = names or ["output_%d" % i for i in range(len(outputs))]
  return dict(zip(names, outputs))


class Exportable(object):
  """Mixin for a keras.Model: `export()` with an int32 feature signature.

  The class defines `serving_feature_names` (the int32 [batch, seq] input
  features of its default signature).
  """

  serving_feature_names = ("input_ids", "input_mask", "token_type_ids")
  serving_output_names = None

  def serving_signature(self):
    """The default input signature: a dict of int32 TensorSpecs."""
    return int_features_signature(self.serving_feature_names)

  def export(self, filepath, format="tf_saved_model", verbose=None,
             input_signature=None, **kwargs):  # pylint: disable=redefined-builtin
    """Writes a SavedModel whose "serve" endpoint runs the model (inference).

    Args:
      filepath: directory to write.
      format: "tf_saved_model" (other formats go to keras.Model.export).
      verbose: print a summary of the endpoint.
      input_signature: optional; default `serving_signature()` (one dict).
      **kwargs: passed to keras.Model.export for other formats.
    """
    if format != "tf_saved_model":
      return super().export(filepath, format=format, verbose=verbose,
                            input_signature=input_signature, **kwargs)
    signature = input_signature or self.serving_signature()
    if not isinstance(signature, (list, tuple)):
      signature = [signature]
    archive = keras.export.ExportArchive()
    archive.track(self)

    def serve(features):
      return flatten_outputs(self(features, training=False),
                             self.serving_output_names)

    archive.add_endpoint("serve", serve, input_signature=list(signature))
    archive.write_out(filepath, verbose=bool(verbose))
