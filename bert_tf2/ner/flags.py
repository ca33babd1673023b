"""Flags of run_ner.py: the classifier's where they apply (same names and
defaults), the runner's, and the NER task's own.

    from bert_tf2.ner import flags as ner_flags
    ner_flags.define_flags()
"""

from absl import flags

from bert_tf2 import runner


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_ner.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("data_dir", None, "Directory of the CoNLL files.", **fv)
  flags.DEFINE_string(
      "bert_config_file", None, "The config json file of the "
      "pre-trained BERT model (its architecture).", **fv)
  flags.DEFINE_string(
      "vocab_file", None, "The vocabulary file that the BERT "
      "model was trained on.", **fv)
  flags.DEFINE_string(
      "output_dir", None, "The output directory where the "
      "model checkpoints and results will be written.", **fv)
  flags.DEFINE_string(
      "init_checkpoint", None, "Initial checkpoint (usually "
      "from a pre-trained BERT model).", **fv)
  flags.DEFINE_bool(
      "do_lower_case", True, "Lower-case the input: True for "
      "uncased models, False for cased ones.", **fv)
  flags.DEFINE_integer(
      "max_seq_length", 128, "Window length in word pieces "
      "([CLS] and [SEP] included); longer sentences are "
      "split into overlapping windows and merged back.", **fv)
  flags.DEFINE_integer(
      "doc_stride", 64, "Word pieces between the starts of "
      "two windows of a long sentence.", **fv)
  flags.DEFINE_bool("do_train", False, "Whether to run training.", **fv)
  flags.DEFINE_bool("do_eval", False, "Whether to evaluate on the dev file.",
                    **fv)
  flags.DEFINE_bool("do_predict", False, "Whether to tag the test file.", **fv)
  flags.DEFINE_integer("train_batch_size", 32, "Total batch size for training.",
                       **fv)
  flags.DEFINE_integer("eval_batch_size", 8, "Total batch size for eval.", **fv)
  flags.DEFINE_integer("predict_batch_size", 8, "Total batch size for predict.",
                       **fv)
  flags.DEFINE_float("learning_rate", 5e-5, "The initial learning rate for "
                     "Adam.", **fv)
  flags.DEFINE_float("num_train_epochs", 3.0, "Total number of training "
                     "epochs to perform.", **fv)
  flags.DEFINE_float(
      "warmup_proportion", 0.1, "Proportion of training with "
      "linear learning rate warmup, e.g. 0.1 = 10%.", **fv)
  runner.define_flags(
      flag_values)  # also save_checkpoints_steps, iterations_per_loop
  flags.DEFINE_float(
      "classifier_dropout_prob", 0.1, "Dropout rate on the final hidden "
      "states before the tag layer in training (0.1: as the classifier). 0 "
      "turns it off, e.g. for runs that must be reproducible across "
      "replicas: each replica of a multi-worker/multi-device job draws its "
      "own dropout masks.", **fv)
  flags.DEFINE_string("train_file", "train.txt", "Training file in --data_dir.",
                      **fv)
  flags.DEFINE_string("dev_file", "dev.txt", "Dev file in --data_dir.", **fv)
  flags.DEFINE_string(
      "test_file", "test.txt", "Test file in --data_dir (tags "
      "optional: a line may hold the token only).", **fv)
  flags.DEFINE_string(
      "labels_file", None, "One tag per line; default: the "
      "tags of the training file ('O' first, then sorted).", **fv)
  flags.DEFINE_string(
      "export_dir", None, "If set, write a SavedModel here: "
      "'serving_default' takes raw text and returns entity "
      "spans; 'serving_ids' takes ids.", **fv)
