# coding=utf-8
"""SavedModel export of a fine-tuned NER model (`--export_dir`).

The serving graph (`serving.ner_server`) and the client (`EntityTagger`, `entities`)
live in `bert_tf2.ner.serving`; this module only writes the SavedModel.
"""

from bert_tf2.common import saved_model
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.ner import serving


def export_saved_model(task, checkpoint, export_dir, vocab_file,
                       do_lower_case, max_seq_length, label_list,
                       doc_stride=None):
  """Writes a SavedModel of `task`'s model with weights from `checkpoint`
  (long texts in windows of max_seq_length every doc_stride pieces)."""
  model = saved_model.restore_model(task, checkpoint)
  preprocessor = NerPreprocessor(vocab_file, labels=label_list,
                                 do_lower_case=do_lower_case,
                                 max_seq_length=max_seq_length,
                                 doc_stride=doc_stride)
  return serving.write_saved_model(
      model, preprocessor, export_dir, what="--export_dir",
      extra_files={"assets.extra.do_lower_case": "%s\n" % bool(do_lower_case)})
