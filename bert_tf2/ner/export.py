# coding=utf-8
"""SavedModel export of a fine-tuned NER model (`--export_dir`).

The serving graph (`NerServer`) and the client (`EntityTagger`, `entities`)
live in `bert_tf2.ner.serving`; this module only writes the SavedModel.
"""

from bert_tf2.common import saved_model
from bert_tf2.ner.serving import NerServer
from tokenization.tf_text import InGraphTokenizer


def export_saved_model(task, checkpoint, export_dir, vocab_file,
                       do_lower_case, max_seq_length, label_list):
  """Writes a SavedModel of `task`'s model with weights from `checkpoint`."""
  model = saved_model.restore_model(task, checkpoint)
  tokenizer = InGraphTokenizer(vocab_file, do_lower_case=do_lower_case)
  server = NerServer(model, tokenizer, max_seq_length, label_list)
  return saved_model.write_saved_model(
      server, export_dir, {"serving_default": server.serve_text,
                           "serving_ids": server.serve_ids},
      what="--export_dir",
      extra_files={"assets.extra.do_lower_case": "%s\n" % bool(do_lower_case)})
