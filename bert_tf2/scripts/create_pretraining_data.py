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

With `--runner=...` (and any other Beam pipeline options, as --name=value)
it runs as an Apache Beam pipeline, `--num_workers` mode's examples on any
runner (pip install -e ".[beam]"; bert_tf2/beam/pretraining_script.py):

  python create_pretraining_data.py ... --output_file=out/records \
    --num_output_files=4 --runner=DirectRunner --direct_num_workers=2 \
    --direct_running_mode=multi_processing
"""

import functools
import sys

from absl import flags
from absl import logging

from bert_tf2.beam import argv as beam_argv
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


def main(_, beam_args=None):
  """Runs the flags' work: locally, or as a Beam pipeline with `beam_args`
  (the command line's Beam pipeline options, when it names --runner)."""
  logging.set_verbosity(logging.INFO)
  if beam_args is not None:
    # First: without apache-beam installed, one line saying how to get it.
    beam_argv.check_pipeline_args(beam_args, "create_pretraining_data.py")
    # Optional dependency (the beam extra): apache-beam, with --runner only.
    from bert_tf2.beam import pretraining_script  # pylint: disable=g-import-not-at-top
    pretraining_script.run_from_flags(FLAGS, beam_args)
    return
  pipeline.run_from_flags(FLAGS)


def run():
  """Console entry point: `bert-create-pretraining-data ...`, the same flags as `python create_pretraining_data.py ...`."""
  flags.mark_flag_as_required("input_file")
  flags.mark_flag_as_required("output_file")
  flags.mark_flag_as_required("vocab_file")
  argv, beam_args = beam_argv.split(sys.argv, FLAGS)
  cli.run(functools.partial(main, beam_args=beam_args), argv=argv)


if __name__ == "__main__":
  run()
