"""Fine-tune BERT on SQuAD 1.1 / 2.0 and predict answers (original flags).

  python run_squad.py --vocab_file=vocab.txt --bert_config_file=bert_config.json \
    --init_checkpoint=bert_model.ckpt --do_train=True --train_file=train-v1.1.json \
    --do_predict=True --predict_file=dev-v1.1.json --train_batch_size=12 \
    --learning_rate=3e-5 --num_train_epochs=2.0 --max_seq_length=384 \
    --doc_stride=128 --output_dir=/tmp/squad_base/

Writes train.tf_record, checkpoints, eval.tf_record, predictions.json,
nbest_predictions.json and, with --version_2_with_negative, null_odds.json to
--output_dir. Score them with evaluate_squad.py. See docs/squad.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import runner
from bert_tf2.squad import pipeline
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)

FLAGS = flags.FLAGS

flags.DEFINE_string("bert_config_file", None,
                    "bert_config.json of the pre-trained model.")
flags.DEFINE_string("vocab_file", None, "vocab.txt of the pre-trained model.")
flags.DEFINE_string("output_dir", None,
                    "Directory for checkpoints, records and predictions.")
flags.DEFINE_string("train_file", None,
                    "SQuAD JSON to train on, e.g. train-v1.1.json.")
flags.DEFINE_string("predict_file", None,
                    "SQuAD JSON to predict, e.g. dev-v1.1.json.")
flags.DEFINE_string("init_checkpoint", None,
                    "Checkpoint to start from (usually pre-trained BERT).")
flags.DEFINE_bool("do_lower_case", True,
                  "Lower-case the input (True for uncased models).")
flags.DEFINE_integer("max_seq_length", 384,
                     "Sequence length after WordPiece tokenization.")
flags.DEFINE_integer("doc_stride", 128,
                     "Stride between the windows of a long context.")
flags.DEFINE_integer("max_query_length", 64,
                     "Questions are cut to this many tokens.")
flags.DEFINE_bool("do_train", False, "Train on --train_file.")
flags.DEFINE_bool("do_predict", False, "Predict --predict_file.")
flags.DEFINE_integer("train_batch_size", 32, "Global training batch size.")
flags.DEFINE_integer("predict_batch_size", 8, "Global prediction batch size.")
flags.DEFINE_float("learning_rate", 5e-5, "Peak learning rate of Adam.")
flags.DEFINE_float("num_train_epochs", 3.0, "Training epochs.")
flags.DEFINE_float("warmup_proportion", 0.1,
                   "Fraction of the steps with linear learning-rate warmup.")
flags.DEFINE_integer("n_best_size", 20,
                     "Candidates per question in nbest_predictions.json.")
flags.DEFINE_integer("max_answer_length", 30,
                     "Longest answer, in tokens.")
flags.DEFINE_bool("verbose_logging", False,
                  "Log every answer-alignment warning of post-processing.")
flags.DEFINE_bool("version_2_with_negative", False,
                  "SQuAD 2.0: some questions have no answer.")
flags.DEFINE_float("null_score_diff_threshold", 0.0,
                   "Predict no answer when null score - best non-null score "
                   "exceeds this.")
flags.DEFINE_bool("trim_padding", False, "Predict each batch at its longest "
                  "sequence (rounded up to a multiple of 16/32/64) instead "
                  "of --max_seq_length: less work, same logits at real "
                  "positions; but the original ranks padding positions in "
                  "its n-best search, so n-best lists (rarely the answer) "
                  "can differ. Training always runs at --max_seq_length: "
                  "its loss counts padding positions.")
# use_tpu, tpu_name, tpu_zone, gcp_project, master, num_tpu_cores,
# save_checkpoints_steps, iterations_per_loop and the runner's new flags.
runner.define_flags()


def main(_):
  pipeline.run(FLAGS)


def run():
  """Console entry point: `bert-run-squad ...`, the same flags as `python run_squad.py ...`."""
  flags.mark_flag_as_required("vocab_file")
  flags.mark_flag_as_required("bert_config_file")
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
