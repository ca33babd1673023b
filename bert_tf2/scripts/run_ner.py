"""BERT fine-tuning for named-entity recognition: run_ner.py.

In the style and with the flags of run_classifier.py where they apply:

  python run_ner.py --do_train=true --do_eval=true --do_predict=true \\
    --data_dir=$NER_DIR --vocab_file=$BERT_BASE_DIR/vocab.txt \\
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \\
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=32 --learning_rate=5e-5 --num_train_epochs=3.0 \\
    --output_dir=/tmp/ner_output/

--data_dir holds CoNLL files (train.txt, dev.txt, test.txt: `token tag` per
line, blank line between sentences; BIO, IOB1 or BIOES). Writes
eval_results.txt (entity precision/recall/F1 per type and micro-averaged,
conlleval's semantics), eval_predictions.txt / test_predictions.txt
(`token gold predicted`), and with --export_dir a SavedModel that takes raw
text. See docs/ner.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import finetune
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner import job as ner_job

FLAGS = flags.FLAGS

ner_flags.define_flags()


# Required unless a finished run in --output_dir records them.
REQUIRED = ("data_dir", "vocab_file", "bert_config_file")


def main(_):
  ner_job.run(finetune.run_settings(FLAGS, REQUIRED))


def run():
  """Console entry point: `bert-run-ner ...`, the same flags as `python run_ner.py ...`."""
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
