"""SavedModel export of a fine-tuned classifier (`--export_dir`).

The serving graph (a `common.serving.TextServer` of the task's preprocessor
and head) is built in `bert_tf2.classifier.serving`; this module restores
the checkpoint and writes.

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
`tokenization.packing.pair_windows`),
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

from bert_tf2.classifier import serving
from bert_tf2.common import saved_model
from bert_tf2.finetune import driver


# The up-front export checks and the choice of checkpoint are the driver's
# (shared by every task); kept here under their old names.
check_export_flags = driver.check_export_flags
checkpoint_to_export = driver.checkpoint_to_export


def export_saved_model(task, checkpoint, export_dir, vocab_file,
                       do_lower_case, max_seq_length, label_list,
                       trim_padding=True, long_text="truncate",
                       doc_stride=128):
  """Writes a SavedModel of `task`'s model with weights from `checkpoint`.

  Args:
    task: the runner task of a `BertClassifier` (builds the model; its
      outputs follow the model: regression, multi-label or softmax).
    checkpoint: checkpoint prefix or directory (e.g. the output_dir).
    export_dir: where to write; replaced atomically if it exists.
    vocab_file, do_lower_case: the tokenizer of the raw-string signatures.
    max_seq_length: sequence length of every signature.
    label_list: labels in output order ([None] for regression).
    trim_padding: the signatures run each batch at its longest sequence
      (inputs still [batch, max_seq_length]; same outputs, less work).
    long_text, doc_stride: "sliding_window" serves long texts as
      --long_text=sliding_window predicts them (see module docstring).

  Returns:
    export_dir.
  """
  model = saved_model.restore_model(task, checkpoint)
  return serving.write_saved_model(
      model, export_dir, vocab_file, do_lower_case, max_seq_length,
      label_list, what="--export_dir", regression=model.regression,
      trim_padding=trim_padding, long_text=long_text, doc_stride=doc_stride,
      multi_label=model.multi_label)
