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
from bert_tf2.feature_extraction import pipeline as extract_pipeline
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)

FLAGS = flags.FLAGS

extract_flags.define_flags()


def main(_):
  extract_pipeline.run(FLAGS)


def run():
  """Console entry point: `bert-extract-features ...`, the same flags as `python extract_features.py ...`."""
  for name in ("input_file", "vocab_file", "bert_config_file",
               "init_checkpoint", "output_file"):
    flags.mark_flag_as_required(name)
  cli.run(main)


if __name__ == "__main__":
  run()
