# coding=utf-8
"""Creates masked-LM / next-sentence TFRecords for BERT pretraining.

Same flags, defaults and output as google-research/bert's script; with the
default --num_workers=1 the same --random_seed gives the same instances in
the same order as the original. See docs/pretraining_data.md.

  python create_pretraining_data.py \
    --input_file=./sample_text.txt --output_file=/tmp/tf_examples.tfrecord \
    --vocab_file=$BERT_BASE_DIR/vocab.txt --do_lower_case=True \
    --max_seq_length=128 --max_predictions_per_seq=20 --masked_lm_prob=0.15 \
    --random_seed=12345 --dupe_factor=5
"""

from absl import flags
from absl import logging

from bert_tf2.common import cli
from bert_tf2.pretraining_data import flags as data_flags
import tokenization  # Also defines the original's --preserve_unused_tokens.
from bert_tf2.pretraining_data import pipeline
# The original module's functions, for code that imports them from here.
from bert_tf2.pretraining_data.compat import create_training_instances  # pylint: disable=unused-import
from bert_tf2.pretraining_data.compat import TrainingInstance  # pylint: disable=unused-import
from bert_tf2.pretraining_data.compat import write_instance_to_example_files  # pylint: disable=unused-import
from bert_tf2.pretraining_data.instances import truncate_seq_pair  # pylint: disable=unused-import

FLAGS = flags.FLAGS

data_flags.define_flags()


def main(_):
  logging.set_verbosity(logging.INFO)
  pipeline.run_from_flags(FLAGS)


def run():
  """Console entry point: `bert-create-pretraining-data ...`, the same flags as `python create_pretraining_data.py ...`."""
  flags.mark_flag_as_required("input_file")
  flags.mark_flag_as_required("output_file")
  flags.mark_flag_as_required("vocab_file")
  cli.run(main)


if __name__ == "__main__":
  run()
