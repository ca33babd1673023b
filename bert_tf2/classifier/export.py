"""SavedModel export of a fine-tuned classifier (`--export_dir`).

Signatures (batch dimension free):
  serving_default  text_a: tf.string [batch] -> probabilities, logits, label
  serving_pair     text_a, text_b: tf.string [batch] -> (same)
  serving_ids      input_ids, input_mask, segment_ids: int32 [batch, seq]
                   -> (same)
For a regression task (STS-B) the outputs are predictions and logits; for
a multi-label task (`--label_column=a,b,c`) probabilities are per-label
sigmoids, with logits and predicted (bool [batch, num_labels]: probability
>= 0.5, as eval_results.txt's threshold).

With long_text="sliding_window" (`--long_text=sliding_window`) the raw-string
signatures cut text_a into the overlapping windows of
`bert_tf2.classifier.long_text` (same rule, in graph:
`serving_inputs.sliding_windows`),
run every window and average each text's window logits before the softmax,
as run_classifier.py's windowed predictions; they also return num_windows
(int32 [batch]). serving_ids stays one row = one window.

The raw-string signatures tokenize inside the graph with
`tokenization.tf_text.InGraphTokenizer` and build the inputs exactly as
`convert_single_example`: [CLS] a [SEP] (b [SEP]), longest-first pair
truncation (the longer side loses a word piece, the second on ties), zero
padding to max_seq_length. An empty text_b means a single sentence.

Example:
  >>> m = tf.saved_model.load(export_dir)                    # doctest: +SKIP
  >>> m.signatures["serving_default"](
  ...     text_a=tf.constant(["a gripping, beautiful film"]))  # doctest: +SKIP
  {'label': <tf.Tensor: [b'pos']>, 'probabilities': ..., 'logits': ...}
"""

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.classifier.serving_inputs import build_inputs
from bert_tf2.classifier.serving_inputs import pair_lengths  # pylint: disable=unused-import
from bert_tf2.classifier.serving_inputs import sliding_windows
from bert_tf2.common import raw_text_serving
from bert_tf2.common import saved_model
from bert_tf2.finetune import driver
from tokenization.tf_text import InGraphTokenizer


class ClassifierServer(tf.Module):
  """Holds the model, tokenizer and labels; its functions are the signatures."""

  def __init__(self, model, tokenizer, max_seq_length, label_list,
               cls_id, sep_id, regression=False, trim_padding=True,
               long_text="truncate", doc_stride=128, multi_label=False,
               chunk_size=raw_text_serving.DEFAULT_CHUNK_SIZE):
    super().__init__(name="classifier_server")
    self.chunk_size = int(chunk_size)
    self.multi_label = bool(multi_label)
    if long_text not in ("truncate", "sliding_window"):
      raise InputError("long_text=%r: expected truncate or sliding_window"
                       % (long_text,))
    if long_text == "sliding_window" and (doc_stride < 1 or
                                          max_seq_length < 4):
      raise InputError("--doc_stride=%d, --max_seq_length=%d: sliding "
                       "windows need doc_stride >= 1 and max_seq_length >= 4"
                       % (doc_stride, max_seq_length))
    self.sliding_window = long_text == "sliding_window"
    self.doc_stride = int(doc_stride)
    self.trim_padding = bool(trim_padding)
    self.model = model
    self.tokenizer = tokenizer
    self.max_seq_length = int(max_seq_length)
    self.regression = regression
    self.labels = tf.constant([str(x) for x in label_list])
    self.cls_id, self.sep_id = int(cls_id), int(sep_id)
    ids_spec = tf.TensorSpec([None, self.max_seq_length], tf.int32)
    text_spec = raw_text_serving.TEXT_SPEC
    self.serve_ids = tf.function(
        self._serve_ids, input_signature=[ids_spec] * 3)
    self.serve_text = tf.function(self._serve_text,
                                  input_signature=[text_spec])
    self.serve_pair = tf.function(self._serve_pair,
                                  input_signature=[text_spec] * 2)

  def _logits(self, input_ids, input_mask, segment_ids):
    """The model's logits, chunk_size rows per call (bounded memory)."""
    return raw_text_serving.call_in_chunks(
        self._chunk_logits, (input_ids, input_mask, segment_ids),
        self.chunk_size)

  def _chunk_logits(self, inputs):
    input_ids, input_mask, segment_ids = inputs
    if self.trim_padding:  # The chunk's longest sequence (same outputs).
      length = tf.maximum(padding.longest_length(input_mask), 1)
      input_ids, input_mask, segment_ids = (
          t[:, :length] for t in (input_ids, input_mask, segment_ids))
    return self.model({"input_ids": input_ids, "input_mask": input_mask,
                       "segment_ids": segment_ids}, training=False)

  def _outputs(self, input_ids, input_mask, segment_ids):
    return self._head(self._logits(input_ids, input_mask, segment_ids))

  def _head(self, logits):
    if self.multi_label:
      probabilities = tf.sigmoid(logits)
      return {"probabilities": probabilities, "logits": logits,
              "predicted": probabilities >= 0.5}
    if self.regression:
      return {"predictions": logits[:, 0], "logits": logits}
    return {"probabilities": tf.nn.softmax(logits, axis=-1),
            "logits": logits,
            "label": tf.gather(self.labels, tf.argmax(logits, axis=-1))}

  def _serve_ids(self, input_ids, input_mask, segment_ids):
    return self._outputs(input_ids, input_mask, segment_ids)

  def _serve_pair(self, text_a, text_b):
    return self._pair(*raw_text_serving.check_text_inputs(
        text_a, text_b, names=["text_a", "text_b"]))

  def _pair(self, text_a, text_b):
    ids_a = self.tokenizer.tokenize(text_a)
    ids_b = self.tokenizer.tokenize(text_b)
    if not self.sliding_window:
      return self._outputs(*build_inputs(ids_a, ids_b, self.max_seq_length,
                                         self.cls_id, self.sep_id))
    window_a, window_b, example = sliding_windows(
        ids_a, ids_b, self.max_seq_length, self.doc_stride)
    logits = self._logits(*build_inputs(window_a, window_b,
                                        self.max_seq_length, self.cls_id,
                                        self.sep_id))
    batch = tf.shape(text_a)[0]
    outputs = self._head(tf.math.unsorted_segment_mean(logits, example,
                                                       batch))
    outputs["num_windows"] = tf.math.bincount(
        tf.cast(example, tf.int32), minlength=batch, maxlength=batch)
    return outputs

  def _serve_text(self, text_a):
    text_a, = raw_text_serving.check_text_inputs(text_a, names=["text_a"])
    return self._pair(text_a, tf.fill(tf.shape(text_a), ""))


# The up-front export checks and the choice of checkpoint are the driver's
# (shared by every task); kept here under their old names.
check_export_flags = driver.check_export_flags
checkpoint_to_export = driver.checkpoint_to_export


def export_saved_model(task, checkpoint, export_dir, vocab_file,
                       do_lower_case, max_seq_length, label_list,
                       trim_padding=True, long_text="truncate",
                       doc_stride=128, multi_label=False):
  """Writes a SavedModel of `task`'s model with weights from `checkpoint`.

  Args:
    task: the ClassifierTask (builds the model).
    checkpoint: checkpoint prefix or directory (e.g. the output_dir).
    export_dir: where to write; replaced atomically if it exists.
    vocab_file, do_lower_case: the tokenizer of the raw-string signatures.
    max_seq_length: sequence length of every signature.
    label_list: labels in output order ([None] for regression).
    trim_padding: the signatures run each batch at its longest sequence
      (inputs still [batch, max_seq_length]; same outputs, less work).
    long_text, doc_stride: "sliding_window" serves long texts as
      --long_text=sliding_window predicts them (see module docstring).
    multi_label: sigmoid probabilities per label (a `MultiLabelTask`).

  Returns:
    export_dir.
  """
  model = saved_model.restore_model(task, checkpoint)
  tokenizer = InGraphTokenizer(vocab_file, do_lower_case=do_lower_case)
  vocab = tokenization_vocab(vocab_file)
  server = ClassifierServer(model, tokenizer, max_seq_length, label_list,
                            vocab["[CLS]"], vocab["[SEP]"],
                            regression=task.is_regression,
                            trim_padding=trim_padding,
                            long_text=long_text, doc_stride=doc_stride,
                            multi_label=multi_label)
  return saved_model.write_saved_model(
      server, export_dir, {"serving_default": server.serve_text,
                           "serving_pair": server.serve_pair,
                           "serving_ids": server.serve_ids},
      what="--export_dir")


def tokenization_vocab(vocab_file):
  import tokenization  # pylint: disable=g-import-not-at-top
  return tokenization.load_vocab(vocab_file)
