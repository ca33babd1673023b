"""Flags of create_pretraining_data.py: the original's (same names and
defaults; --preserve_unused_tokens comes with `import tokenization`) and ours.
"""

from absl import flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every create_pretraining_data.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("input_file", None,
                      "Input raw text file(s): comma-separated globs. One "
                      "sentence per line, a blank line between documents.",
                      **fv)
  flags.DEFINE_string("output_file", None,
                      "Output TFRecord file(s), comma-separated; instances are "
                      "written round-robin.", **fv)
  flags.DEFINE_string("vocab_file", None,
                      "Vocabulary file of the BERT model.", **fv)
  flags.DEFINE_bool("do_lower_case", True,
                    "Lower-case the text: True for uncased models, False for "
                    "cased ones.", **fv)
  flags.DEFINE_bool("do_whole_word_mask", False,
                    "Mask whole words (all word pieces of a word) instead of "
                    "single word pieces.", **fv)
  flags.DEFINE_integer("max_seq_length", 128, "Maximum sequence length.", **fv)
  flags.DEFINE_integer("max_predictions_per_seq", 20,
                       "Maximum number of masked-LM predictions per sequence.",
                       **fv)
  flags.DEFINE_integer("random_seed", 12345, "Random seed.", **fv)
  flags.DEFINE_integer("dupe_factor", 10,
                       "Number of passes over the corpus (each with different "
                       "masks).", **fv)
  flags.DEFINE_float("masked_lm_prob", 0.15, "Masked-LM probability.", **fv)
  flags.DEFINE_float("short_seq_prob", 0.1,
                     "Probability of a sequence shorter than the maximum.",
                     **fv)
  flags.DEFINE_integer("num_workers", 1,
                       "1: single process, the original's instances and order. "
                       "N >= 2: documents sharded over N processes, streaming, "
                       "bounded memory; deterministic but not the original's "
                       "order.", **fv)
  flags.DEFINE_integer("num_output_files", 0,
                       "N >= 1: write N files --output_file-SSSSS-of-NNNNN "
                       "(--output_file is then one path prefix); 0: the "
                       "files listed in --output_file (with --runner: as many "
                       "as the runner chooses).", **fv)
  flags.DEFINE_integer("shard_documents", 1000,
                       "With --num_workers >= 2 or --runner: documents per "
                       "shard.", **fv)
  flags.DEFINE_enum("word_boundaries", "none", ["none", "spaces", "jieba"],
                    "Chinese whole-word masking: none (the original), spaces "
                    "(input words separated by spaces, or see "
                    "--segmented_file) or jieba (segmenter, pip install "
                    "jieba). All characters of a word are masked together, "
                    "one 80/10/10 draw per word.", **fv)
  flags.DEFINE_string("segmented_file", None,
                      "With --word_boundaries=spaces: file(s) line-parallel to "
                      "--input_file holding its text with words separated by "
                      "spaces; the raw --input_file text is tokenized.", **fv)
