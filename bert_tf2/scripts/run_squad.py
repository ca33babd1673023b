"""Fine-tune BERT on SQuAD 1.1 / 2.0 and predict answers (original flags).

  python run_squad.py --vocab_file=vocab.txt --bert_config_file=bert_config.json \
    --init_checkpoint=bert_model.ckpt --do_train=True --train_file=train-v1.1.json \
    --do_predict=True --predict_file=dev-v1.1.json --train_batch_size=12 \
    --learning_rate=3e-5 --num_train_epochs=2.0 --max_seq_length=384 \
    --doc_stride=128 --output_dir=/tmp/squad_base/

Writes train.tf_record, checkpoints, eval.tf_record, predictions.json,
nbest_predictions.json and, with --version_2_with_negative, null_odds.json to
--output_dir. Score them with evaluate_squad.py. See docs/squad.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import finetune
from bert_tf2.squad import flags as squad_flags
from bert_tf2.squad import job as squad_job
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)

FLAGS = flags.FLAGS

squad_flags.define_flags()


# Required unless a finished run in --output_dir records them.
REQUIRED = ("vocab_file", "bert_config_file")


def main(_):
  squad_job.run(finetune.run_settings(FLAGS, REQUIRED))


def run():
  """Console entry point: `bert-run-squad ...`, the same flags as `python run_squad.py ...`."""
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
