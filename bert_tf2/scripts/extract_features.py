"""Extract pre-computed feature vectors from BERT (original command line).

  python extract_features.py --input_file=in.txt --output_file=out.jsonl \
    --vocab_file=vocab.txt --bert_config_file=bert_config.json \
    --init_checkpoint=bert_model.ckpt --layers=-1,-2,-3,-4 \
    --max_seq_length=128 --batch_size=8 [--pooling=none|cls|mean]

Each input line is "text" or "text_a ||| text_b"; see docs/squad.md for the
output format.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2.feature_extraction import flags as extract_flags
from bert_tf2 import feature_extraction
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)

FLAGS = flags.FLAGS

extract_flags.define_flags()


def _strategy():
  if not FLAGS.use_tpu:
    return None
  from bert_tf2 import runner  # pylint: disable=g-import-not-at-top
  return runner.strategy_from_flags(
      use_tpu=True, tpu_name=None, tpu_zone=None, gcp_project=None,
      master=FLAGS.master, num_tpu_cores=FLAGS.num_tpu_cores)


def main(_):
  cli.require_file("input_file", FLAGS.input_file)
  cli.require_file("vocab_file", FLAGS.vocab_file)
  cli.require_file("bert_config_file", FLAGS.bert_config_file)
  feature_extraction.extract_to_file(
      input_file=FLAGS.input_file, output_file=FLAGS.output_file,
      bert_config_file=FLAGS.bert_config_file,
      init_checkpoint=FLAGS.init_checkpoint, vocab_file=FLAGS.vocab_file,
      layers=FLAGS.layers, max_seq_length=FLAGS.max_seq_length,
      do_lower_case=FLAGS.do_lower_case, batch_size=FLAGS.batch_size,
      use_one_hot_embeddings=FLAGS.use_one_hot_embeddings,
      pooling=FLAGS.pooling, strategy=_strategy(),
      trim_padding=FLAGS.trim_padding and not FLAGS.use_tpu,
      export_dir=FLAGS.export_dir)


def run():
  """Console entry point: `bert-extract-features ...`, the same flags as `python extract_features.py ...`."""
  for name in ("input_file", "vocab_file", "bert_config_file",
               "init_checkpoint", "output_file"):
    flags.mark_flag_as_required(name)
  cli.run(main)


if __name__ == "__main__":
  run()
