"""Flags of run_squad.py: the original ones (same names and defaults) and
the runner's (strategy, precision, ...).

    from bert_tf2.squad import flags as squad_flags
    squad_flags.define_flags()
"""

from absl import flags

from bert_tf2 import runner


def define_flags(flag_values=flags.FLAGS):
  """Defines every run_squad.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("bert_config_file", None,
                      "bert_config.json of the pre-trained model.", **fv)
  flags.DEFINE_string("vocab_file", None, "vocab.txt of the pre-trained model.",
                      **fv)
  flags.DEFINE_string("output_dir", None,
                      "Directory for checkpoints, records and predictions.",
                      **fv)
  flags.DEFINE_string("train_file", None,
                      "SQuAD JSON to train on, e.g. train-v1.1.json.", **fv)
  flags.DEFINE_string("predict_file", None,
                      "SQuAD JSON to predict, e.g. dev-v1.1.json.", **fv)
  flags.DEFINE_string("init_checkpoint", None,
                      "Checkpoint to start from (usually pre-trained BERT).",
                      **fv)
  flags.DEFINE_bool("do_lower_case", True,
                    "Lower-case the input (True for uncased models).", **fv)
  flags.DEFINE_integer("max_seq_length", 384,
                       "Sequence length after WordPiece tokenization.", **fv)
  flags.DEFINE_bool(
      "trim_padding", False, "Predict each batch at its longest sequence "
      "(rounded up to a bucket) instead of --max_seq_length: less work, "
      "same logits at real positions; but the original ranks padding "
      "positions in its n-best search, so n-best lists (rarely the answer) "
      "can differ. Training always runs at --max_seq_length: its loss counts "
      "padding positions.", **fv)
  flags.DEFINE_integer("doc_stride", 128,
                       "Stride between the windows of a long context.", **fv)
  flags.DEFINE_integer("max_query_length", 64,
                       "Questions are cut to this many tokens.", **fv)
  flags.DEFINE_bool("do_train", False, "Train on --train_file.", **fv)
  flags.DEFINE_bool("do_predict", False, "Predict --predict_file.", **fv)
  flags.DEFINE_integer("train_batch_size", 32, "Global training batch size.",
                       **fv)
  flags.DEFINE_integer("predict_batch_size", 8, "Global prediction batch size.",
                       **fv)
  flags.DEFINE_float("learning_rate", 5e-5, "Peak learning rate of Adam.", **fv)
  flags.DEFINE_float("num_train_epochs", 3.0, "Training epochs.", **fv)
  flags.DEFINE_float("warmup_proportion", 0.1,
                     "Fraction of the steps with linear learning-rate warmup.",
                     **fv)
  flags.DEFINE_integer("n_best_size", 20,
                       "Candidates per question in nbest_predictions.json.",
                       **fv)
  flags.DEFINE_integer("max_answer_length", 30, "Longest answer, in tokens.",
                       **fv)
  flags.DEFINE_bool("verbose_logging", False,
                    "Log every answer-alignment warning of post-processing.",
                    **fv)
  flags.DEFINE_bool("version_2_with_negative", False,
                    "SQuAD 2.0: some questions have no answer.", **fv)
  flags.DEFINE_float(
      "null_score_diff_threshold", 0.0,
      "Predict no answer when null score - best non-null score "
      "exceeds this.", **fv)
  # use_tpu, tpu_name, tpu_zone, gcp_project, master, num_tpu_cores,
  # save_checkpoints_steps, iterations_per_loop and the runner's new flags.
  runner.define_flags(flag_values)
