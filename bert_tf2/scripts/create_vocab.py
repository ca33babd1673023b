# coding=utf-8
"""Learns a BERT WordPiece vocab.txt from text in pretraining input format.

Input: one sentence per line, blank lines between documents (the format of
create_pretraining_data.py). Words are split exactly as FullTokenizer splits
them (see tokenization/vocab_learner.py for the learner and the layout of
[PAD], [unusedN], [UNK], [CLS], [SEP], [MASK]).

  python create_vocab.py --input_file='corpus/*.txt' --output_file=vocab.txt \
      --vocab_size=30522 --do_lower_case=true
"""

from absl import flags
from absl import logging

from bert_tf2.common import atomic_write_text
from bert_tf2.common import cli
from bert_tf2.common import InputError
import tokenization
from tokenization import flags as tokenization_flags
from tokenization import vocab_learner

FLAGS = flags.FLAGS


def define_flags(flag_values=flags.FLAGS):
  """Defines every create_vocab.py flag on `flag_values` (here: the
  original's tokenization defines no script flags)."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("input_file", None,
                      "Input text file(s): comma-separated, globs allowed.",
                      **fv)
  flags.DEFINE_string("output_file", None, "Where to write vocab.txt.", **fv)
  flags.DEFINE_integer("vocab_size", 30522,
                       "Most entries in the vocabulary, reserved ones "
                       "included.",
                       **fv)
  flags.DEFINE_bool("do_lower_case", True,
                    "Lower-case and strip accents (for uncased models).", **fv)
  flags.DEFINE_integer("num_unused", 994,
                       "Number of [unusedN] slots (Google's vocabs have 994).",
                       **fv)
  flags.DEFINE_integer("max_unique_chars", 1000,
                       "Most distinct characters; raise it for CJK corpora.",
                       **fv)
  flags.DEFINE_integer("min_count", 10,
                       "Lower bound of the learner's frequency threshold.",
                       **fv)


define_flags()


def read_lines(paths):
  """Yields the lines (str) of every file; bad UTF-8 bytes are dropped."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  for path in paths:
    with tf.io.gfile.GFile(path, "rb") as f:
      for raw in f:
        line = tokenization.convert_to_unicode(raw).strip()
        if line:
          yield line


def main(_):
  # Words are counted before the vocabulary exists: no [unusedN] entry
  # could be kept whole.
  tokenization_flags.refuse_preserve_unused_tokens(
      "create_vocab.py", why="splits words before any vocabulary exists")
  cli.require_output_file("output_file", FLAGS.output_file)
  if not FLAGS.input_file:
    raise InputError("--input_file is required")
  paths = cli.expand_globs("input_file", FLAGS.input_file)
  counts = vocab_learner.count_words(read_lines(paths), FLAGS.do_lower_case)
  logging.info("%d distinct words in %d files", len(counts), len(paths))
  vocab = vocab_learner.learn_vocab(
      counts, FLAGS.vocab_size, num_unused=FLAGS.num_unused,
      max_unique_chars=FLAGS.max_unique_chars, min_count=FLAGS.min_count)
  atomic_write_text(FLAGS.output_file, "".join(t + "\n" for t in vocab))
  logging.info("wrote %d entries to %s", len(vocab), FLAGS.output_file)


def run():
  """Console entry point: `bert-create-vocab ...`, the same flags as `python create_vocab.py ...`."""
  cli.run(main)


if __name__ == "__main__":
  run()
