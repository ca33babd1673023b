"""BERT fine-tuning for sentence (pair) classification: run_classifier.py.

Google's original command lines work unchanged, e.g.

  python run_classifier.py --task_name=MRPC --do_train=true --do_eval=true \\
    --data_dir=$GLUE_DIR/MRPC --vocab_file=$BERT_BASE_DIR/vocab.txt \\
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \\
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=32 --learning_rate=2e-5 --num_train_epochs=3.0 \\
    --output_dir=/tmp/mrpc_output/

Tasks: cola, mnli, mrpc, xnli (the original's), sst-2, qnli, qqp, rte,
wnli, sts-b (regression), mnli-mm, and tsv/csv for your own files (see
--text_a_column etc.). Beyond the original: --export_dir (SavedModel taking
raw strings or ids), --long_text=sliding_window, and the runner's flags
(precision, strategy, ...). See docs/classifier.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import finetune
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)
from bert_tf2.classifier import flags as classifier_flags
from bert_tf2.classifier import pipeline

FLAGS = flags.FLAGS

classifier_flags.define_flags()


# Required unless a finished run in --output_dir records them.
REQUIRED = ("data_dir", "task_name", "vocab_file", "bert_config_file")


def main(_):
  pipeline.run(finetune.run_settings(FLAGS, REQUIRED))


def run():
  """Console entry point: `bert-run-classifier ...`, the same flags as `python run_classifier.py ...`."""
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
