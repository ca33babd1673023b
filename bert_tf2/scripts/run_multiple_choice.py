"""BERT fine-tuning for multiple choice (SWAG): run_multiple_choice.py.

  python run_multiple_choice.py --data_dir=$SWAG_DIR --train_file=train.csv \\
    --dev_file=val.csv --do_train=true --do_eval=true \\
    --vocab_file=$BERT_BASE_DIR/vocab.txt \\
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \\
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=16 --learning_rate=2e-5 --num_train_epochs=3.0 \\
    --output_dir=/tmp/swag_output/

One [CLS] score per (context, choice) pair, softmax over the choices (the
BERT paper's SWAG method). Files: SWAG CSV (*.csv) or JSONL (context,
optional question, choices, label). See docs/multiple_choice.md.
"""

from absl import flags

from bert_tf2 import finetune
from bert_tf2.common import cli
from bert_tf2.finetune import driver
from bert_tf2.multiple_choice import flags as mc_flags
from bert_tf2.multiple_choice.job import MultipleChoiceJob

FLAGS = flags.FLAGS

mc_flags.define_flags()


# Required unless a finished run in --output_dir records them.
REQUIRED = ("data_dir", "vocab_file", "bert_config_file")


def main(_):
  driver.run(MultipleChoiceJob(finetune.run_settings(FLAGS, REQUIRED)))


def run():
  """Console entry point: `bert-run-multiple-choice ...`."""
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
