# coding=utf-8
"""Pre-trains BERT (masked LM + next sentence prediction) on TensorFlow 2.

The original command lines work unchanged, e.g.

  python run_pretraining.py \
    --input_file=/tmp/tf_examples.tfrecord \
    --output_dir=/tmp/pretraining_output \
    --do_train=True --do_eval=True \
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt \
    --train_batch_size=32 --max_seq_length=128 --max_predictions_per_seq=20 \
    --num_train_steps=20 --num_warmup_steps=10 --learning_rate=2e-5

See docs/pretraining.md for the outputs and the options beyond the original.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import finetune
from bert_tf2.pretraining import flags as pretraining_flags
from bert_tf2.pretraining import run as pretraining_run
from tokenization import flags as tokenization_flags

pretraining_flags.define_flags()
FLAGS = flags.FLAGS


def main(_):
  tokenization_flags.refuse_preserve_unused_tokens("run_pretraining.py")
  pretraining_run.run_pretraining(finetune.Settings.from_flags(FLAGS))


def run():
  """Console entry point: `bert-run-pretraining ...`, the same flags as `python run_pretraining.py ...`."""
  flags.mark_flag_as_required("input_file")
  flags.mark_flag_as_required("bert_config_file")
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
