# coding=utf-8
"""Draws BERT's attention maps for a sentence (pair), per layer and head:
a PNG grid (--output_file) and, next to it, an interactive HTML page
(attention.png -> attention.html: layer/head selector, values on hover).

  python visualize_attention.py --bert_config_file=$BERT_DIR/bert_config.json \\
    --init_checkpoint=$BERT_DIR/bert_model.ckpt --vocab_file=$BERT_DIR/vocab.txt \\
    --text_a="The cat sat on the mat." --text_b="It purred." \\
    --layers=0,5 --output_file=/tmp/attention.png
"""

from absl import flags

from bert_tf2.common import cli
from bert_research.analysis import extra
from bert_research.analysis import flags as analysis_flags

FLAGS = flags.FLAGS

analysis_flags.define_attention_flags()


def main(_):
  extra.require_analysis_extra("visualize_attention.py")
  from bert_research.analysis import attention_run  # pylint: disable=g-import-not-at-top
  tokens, probs = attention_run.visualize(
      bert_config_file=FLAGS.bert_config_file,
      init_checkpoint=FLAGS.init_checkpoint, vocab_file=FLAGS.vocab_file,
      text_a=FLAGS.text_a, text_b=FLAGS.text_b,
      do_lower_case=FLAGS.do_lower_case, layers=FLAGS.layers,
      heads=FLAGS.heads,
      max_seq_length=(FLAGS.max_seq_length
                      if FLAGS["max_seq_length"].present else None),
      output_file=FLAGS.output_file)
  print("wrote %d x %d attention maps over %d tokens to %s and %s"
        % (probs.shape[0], probs.shape[1], len(tokens), FLAGS.output_file,
           attention_run.html_path(FLAGS.output_file)))


def run():
  """Console entry point: `bert-visualize-attention ...`, the same flags as `python visualize_attention.py ...`."""
  for name in ("bert_config_file", "init_checkpoint", "vocab_file", "text_a",
               "output_file"):
    flags.mark_flag_as_required(name)
  cli.run(main)


if __name__ == "__main__":
  run()
