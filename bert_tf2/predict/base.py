"""What every predictor shares: config, tokenizer, weights from a checkpoint."""

import inspect

import tensorflow as tf

import modeling
import tokenization
from bert_tf2.common import InputError
from bert_tf2.common import named_files
from bert_tf2.finetune import assets as assets_lib
from bert_tf2.predict import int8 as int8_lib
from bert_tf2.runner import precision as precision_lib
from bert_tf2.runner import speed_defaults


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


class Predictor(object):
  """Base: loads bert_config, the WordPiece vocabulary and a checkpoint.

  Args:
    bert_config_file: path of bert_config.json.
    checkpoint: checkpoint prefix or directory with the model's weights.
    vocab_file: the vocabulary.
    do_lower_case: bool, as in training.
    max_seq_length: int, the model's sequence length.
    batch_size: int, examples per model call.
    precision: None (the default: `recorded_precision`, the one the run
      answered in), "float32", "bfloat16" (Keras mixed_bfloat16: outputs
      float32, within bfloat16 round-off of float32's), "float16", "auto"
      (bfloat16 on a CPU that multiplies it fast, else float32) or, where
      the subclass offers it (`precisions`), "int8" (ONNX Runtime); see
      `runner.speed_defaults.resolve_inference_precision` (logged in one
      line).
    recorded_precision: the precision the run's answers were made in
      (`from_output_dir` passes model.json's; float32 otherwise).
  """

  kind = None
  precisions = ("auto", "float32", "bfloat16", "float16")

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=128, batch_size=32,
               precision=None, recorded_precision="float32"):
    self.precision = speed_defaults.resolve_inference_precision(
        precision, type(self).__name__, offered=self.precisions,
        recorded=recorded_precision)
    self.bert_config = modeling.BertConfig.from_json_file(bert_config_file)
    modeling.check_sequence_length(self.bert_config, max_seq_length)
    self.vocab_file = vocab_file
    self.do_lower_case = bool(do_lower_case)
    self.max_seq_length = int(max_seq_length)
    self.batch_size = int(batch_size)
    self.tokenizer = tokenization.FullTokenizer(vocab_file, do_lower_case)
    modeling.check_vocab_size(self.bert_config, len(self.tokenizer.vocab))
    self.checkpoint = checkpoint
    # int8 runs an ONNX export of the float32 model.
    with precision_lib.policy_scope(
        "float32" if self.precision == "int8" else self.precision):
      self.model = self.build_model()
    modeling.init_from_checkpoint(self.model, checkpoint,
                                  flag="predictor checkpoint")
    self._onnx_twin = None

  def build_model(self,
                  attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT):
    """The predictor's Keras model (attention_layout: see modeling.BertModel)."""
    raise NotImplementedError

  def _onnx_model(self):
    """self.model built with attention_layout="matmul", same weights.

    The layout tf2onnx turns into the ONNX graph ONNX Runtime runs fastest
    (`modeling.attention.ATTENTION_LAYOUTS`); same outputs to float32
    round-off. Built on first use, then kept.
    """
    if self._onnx_twin is None:
      with precision_lib.policy_scope("float32"):
        twin = self.build_model(attention_layout="matmul")
      twin.set_weights(self.model.get_weights())
      self._onnx_twin = twin
    return self._onnx_twin

  def _model_function(self, forward, int8=False, int8_dir=None):
    """forward as a traced TF function, or (int8) as an int8 ONNX model.

    Args:
      forward: function of int32 input_ids, input_mask, segment_ids
        [batch, seq] returning a Tensor or a tuple of Tensors.
      int8: True: run an int8 ONNX Runtime export of forward
        (`predict.int8`); a str: load that .onnx file (an earlier
        `export_onnx` of this model) instead of converting again.
      int8_dir: where to write the .onnx file (default: a temporary dir).
    """
    if not int8:
      return tf.function(forward, reduce_retracing=True, autograph=False)
    int8_lib.require()
    if isinstance(int8, str):
      if not tf.io.gfile.exists(int8):
        raise InputError("int8=%s: ONNX file not found" % int8)
      return int8_lib.OnnxModel(int8)
    self._onnx_model()  # Now: a traced function cannot create its variables.
    return int8_lib.quantize(forward, cache_dir=int8_dir)

  def export_onnx(self, path, int8=True):
    """Writes the model (token ids in; no tokenizer) as an ONNX file.

    Inputs input_ids, input_mask, segment_ids: int32 [batch, seq] (any
    seq <= max_seq_length); outputs as `predict_logits` / the vectors.
    int8=True quantizes the dense weights (`predict.int8`). Returns path.
    """
    self._onnx_model()  # Now: a traced function cannot create its variables.
    return int8_lib.export_onnx(self._onnx_forward, path,
                                quantize_weights=int8)

  def _onnx_forward(self, input_ids, input_mask, segment_ids):
    """The ONNX export's function (on `_onnx_model()`): a tuple of Tensors."""
    raise NotImplementedError

  @classmethod
  def from_output_dir(cls, output_dir, best=False, allow_outside=False,
                      **overrides):
    """A predictor from a training output_dir (its model.json, or an
    earlier version's predictor/predictor.json).

    Args:
      output_dir: the training run's output_dir.
      best: load output_dir/best/ (the kept best checkpoint) instead of the
        recorded one (the checkpoint the run predicted with and exported;
        the latest when none is recorded).
      allow_outside: read files that lead outside output_dir (symlinks
        to a shared checkpoint); by default each is refused in one line
        before it is opened (`bert_tf2.common.named_files`).
      **overrides: constructor arguments replacing the saved ones (e.g.
        batch_size, or checkpoint).
    """
    with named_files.allowing_outside(allow_outside):
      info = assets_lib.load_assets(output_dir, cls.kind)
      info.pop("kind")
      if best or "checkpoint" not in info:
        info["checkpoint"] = assets_lib.checkpoint_of(output_dir, best=best)
    info.update(overrides)
    # Settings the constructor does not take are implied by those it does
    # (a classifier's num_labels and regression by its label_list).
    accepted = inspect.signature(cls.__init__).parameters
    return cls(**{k: v for k, v in info.items() if k in accepted})
