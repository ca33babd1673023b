"""Flags of run_pretraining.py: the original ones (same names and defaults),
the runner's (strategy, precision, ...) and a few pretraining options."""

from absl import flags

from bert_tf2 import runner


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_pretraining.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  # The original flags, names and defaults unchanged.
  flags.DEFINE_string(
      "bert_config_file", None,
      "bert_config.json of the model to pretrain (its architecture).", **fv)
  flags.DEFINE_string(
      "input_file", None,
      "Pretraining TFRecords from create_pretraining_data.py: one or more "
      "comma-separated file names or globs.", **fv)
  flags.DEFINE_string(
      "output_dir", None,
      "Directory for checkpoints (training resumes from the newest one) "
      "and eval_results.txt.", **fv)
  flags.DEFINE_string(
      "init_checkpoint", None,
      "Checkpoint to start from when output_dir has none (e.g. a released "
      "BERT model).", **fv)
  flags.DEFINE_integer(
      "max_seq_length", 128,
      "Sequence length of the records; must equal the value used by "
      "create_pretraining_data.py.", **fv)
  flags.DEFINE_integer(
      "max_predictions_per_seq", 20,
      "Masked positions per record; must equal the value used by "
      "create_pretraining_data.py.", **fv)
  flags.DEFINE_bool("do_train", False, "Train.", **fv)
  flags.DEFINE_bool("do_eval", False, "Evaluate on --input_file.", **fv)
  flags.DEFINE_integer("train_batch_size", 32,
                       "Global batch size for training.", **fv)
  flags.DEFINE_integer("eval_batch_size", 8,
                       "Global batch size for evaluation.", **fv)
  flags.DEFINE_float("learning_rate", 5e-5, "Peak learning rate (Adam).",
                     **fv)
  flags.DEFINE_integer("num_train_steps", 100000,
                       "Train until this global step.", **fv)
  flags.DEFINE_integer("num_warmup_steps", 10000,
                       "Steps of linear learning-rate warmup.", **fv)
  flags.DEFINE_integer("max_eval_steps", 100,
                       "Number of evaluation batches.", **fv)
  # --save_checkpoints_steps, --iterations_per_loop, the TPU flags and the
  # runner's new flags (--strategy, --precision, ...).
  runner.define_flags(flag_values)
  # Pretraining options beyond the original.
  flags.DEFINE_bool(
      "dynamic_masking", False,
      "Choose new masked positions for every batch while reading (80% "
      "[MASK], 10% random token, 10% unchanged) instead of using the "
      "masks stored in the records.", **fv)
  flags.DEFINE_float(
      "masked_lm_prob", 0.15,
      "With --dynamic_masking: fraction of the tokens to mask (at most "
      "--max_predictions_per_seq).", **fv)
  flags.DEFINE_integer("dynamic_masking_seed", 12345,
                       "With --dynamic_masking: random seed of the masks.",
                       **fv)
  flags.DEFINE_string(
      "vocab_file", None,
      "Optional vocab.txt; with --dynamic_masking it gives the ids of "
      "[CLS], [SEP] and [MASK] (default: 101, 102, 103 as in Google's "
      "vocabularies).", **fv)
  flags.DEFINE_bool(
      "no_nsp", False,
      "Masked-LM only: no next-sentence head and loss (the records' "
      "next_sentence_labels are ignored).", **fv)
  flags.DEFINE_bool(
      "check_all_records", False,
      "Before training, read every input record and check its features "
      "(lengths, token ids < vocab_size) and the files' integrity; by "
      "default only the first record of each file is checked up front and "
      "the rest when the input pipeline fails.", **fv)
  flags.DEFINE_bool(
      "deterministic_input", False,
      "Read training files in a fixed, seeded order (the original's "
      "interleave is nondeterministic), for reproducible runs.", **fv)
