"""The fine-tuning flags run_classifier.py, run_squad.py and run_ner.py share
(and the runner's, `runner.define_flags`).

Example:
  >>> from absl import flags
  >>> values = flags.FlagValues()
  >>> define_finetuning_flags(values, max_seq_length=384, do_eval=False)
  >>> values(["prog"])[1:]
  []
  >>> values.max_seq_length, values.learning_rate, "do_eval" in values
  (384, 5e-05, False)
"""

from absl import flags

from bert_tf2.runner import flags as runner_flags

MAX_SEQ_LENGTH_HELP = ("Maximum total input length in word pieces; longer "
                       "inputs are truncated, shorter ones padded.")


def define_finetuning_flags(flag_values=flags.FLAGS, max_seq_length=128,
                            max_seq_length_help=MAX_SEQ_LENGTH_HELP,
                            do_eval=True, output_dir_help=None):
  """Defines the shared fine-tuning flags (and the runner's) on flag_values.

  Args:
    flag_values: absl FlagValues (default the global FLAGS).
    max_seq_length: the script's default --max_seq_length (the original's:
      128 for run_classifier.py, 384 for run_squad.py).
    max_seq_length_help: its help text.
    do_eval: define --do_eval and --eval_batch_size (run_squad.py has
      neither).
    output_dir_help: help of --output_dir, if the script writes more than
      checkpoints there.
  """
  fv = {"flag_values": flag_values}
  flags.DEFINE_string(
      "bert_config_file", None, "The config json file of the "
      "pre-trained BERT model (its architecture).", **fv)
  flags.DEFINE_string(
      "vocab_file", None, "The vocabulary file that the BERT "
      "model was trained on.", **fv)
  flags.DEFINE_string(
      "output_dir", None, output_dir_help or "The output directory where "
      "the model checkpoints will be written.", **fv)
  flags.DEFINE_string(
      "init_checkpoint", None, "Initial checkpoint (usually "
      "from a pre-trained BERT model).", **fv)
  flags.DEFINE_bool(
      "do_lower_case", True, "Lower-case the input: True for "
      "uncased models, False for cased ones.", **fv)
  flags.DEFINE_integer("max_seq_length", max_seq_length, max_seq_length_help,
                       **fv)
  flags.DEFINE_bool("do_train", False, "Whether to run training.", **fv)
  if do_eval:
    flags.DEFINE_bool("do_eval", False, "Whether to run eval on the dev set.",
                      **fv)
  flags.DEFINE_bool(
      "do_predict", False, "Whether to run the model in "
      "inference mode on the test set.", **fv)
  flags.DEFINE_integer("train_batch_size", 32,
                       "Total batch size for training.", **fv)
  if do_eval:
    flags.DEFINE_integer("eval_batch_size", 8, "Total batch size for eval.",
                         **fv)
  flags.DEFINE_integer("predict_batch_size", 8,
                       "Total batch size for predict.", **fv)
  flags.DEFINE_float("learning_rate", 5e-5, "The initial learning rate for "
                     "Adam.", **fv)
  flags.DEFINE_float("num_train_epochs", 3.0, "Total number of training "
                     "epochs to perform.", **fv)
  flags.DEFINE_float(
      "warmup_proportion", 0.1, "Proportion of training with "
      "linear learning rate warmup, e.g. 0.1 = 10%.", **fv)
  runner_flags.define_flags(flag_values)
