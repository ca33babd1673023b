"""BERT fine-tuning for named-entity recognition: run_ner.py.

In the style and with the flags of run_classifier.py where they apply:

  python run_ner.py --do_train=true --do_eval=true --do_predict=true \\
    --data_dir=$NER_DIR --vocab_file=$BERT_BASE_DIR/vocab.txt \\
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \\
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=32 --learning_rate=5e-5 --num_train_epochs=3.0 \\
    --output_dir=/tmp/ner_output/

--data_dir holds CoNLL files (train.txt, dev.txt, test.txt: `token tag` per
line, blank line between sentences; BIO, IOB1 or BIOES). Writes
eval_results.txt (entity precision/recall/F1 per type and micro-averaged,
conlleval's semantics), eval_predictions.txt / test_predictions.txt
(`token gold predicted`), and with --export_dir a SavedModel that takes raw
text. See docs/ner.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import runner
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)
from bert_tf2.ner import pipeline

FLAGS = flags.FLAGS

flags.DEFINE_string("data_dir", None, "Directory of the CoNLL files.")
flags.DEFINE_string("bert_config_file", None, "The config json file of the "
                    "pre-trained BERT model (its architecture).")
flags.DEFINE_string("vocab_file", None, "The vocabulary file that the BERT "
                    "model was trained on.")
flags.DEFINE_string("output_dir", None, "The output directory where the "
                    "model checkpoints and results will be written.")
flags.DEFINE_string("init_checkpoint", None, "Initial checkpoint (usually "
                    "from a pre-trained BERT model).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case the input: True for "
                  "uncased models, False for cased ones.")
flags.DEFINE_integer("max_seq_length", 128, "Window length in word pieces "
                     "([CLS] and [SEP] included); longer sentences are "
                     "split into overlapping windows and merged back.")
flags.DEFINE_integer("doc_stride", 64, "Word pieces between the starts of "
                     "two windows of a long sentence.")
flags.DEFINE_bool("do_train", False, "Whether to run training.")
flags.DEFINE_bool("do_eval", False, "Whether to evaluate on the dev file.")
flags.DEFINE_bool("do_predict", False, "Whether to tag the test file.")
flags.DEFINE_integer("train_batch_size", 32, "Total batch size for training.")
flags.DEFINE_integer("eval_batch_size", 8, "Total batch size for eval.")
flags.DEFINE_integer("predict_batch_size", 8, "Total batch size for predict.")
flags.DEFINE_float("learning_rate", 5e-5, "The initial learning rate for "
                   "Adam.")
flags.DEFINE_float("num_train_epochs", 3.0, "Total number of training "
                   "epochs to perform.")
flags.DEFINE_float("warmup_proportion", 0.1, "Proportion of training with "
                   "linear learning rate warmup, e.g. 0.1 = 10%.")
flags.DEFINE_integer("save_checkpoints_steps", 1000, "How often to save the "
                     "model checkpoint.")
flags.DEFINE_integer("iterations_per_loop", 1000, "How many steps to make in "
                     "each estimator call.")
runner.define_flags()
flags.DEFINE_string("train_file", "train.txt", "Training file in --data_dir.")
flags.DEFINE_string("dev_file", "dev.txt", "Dev file in --data_dir.")
flags.DEFINE_string("test_file", "test.txt", "Test file in --data_dir (tags "
                    "optional: a line may hold the token only).")
flags.DEFINE_string("labels_file", None, "One tag per line; default: the "
                    "tags of the training file ('O' first, then sorted).")
flags.DEFINE_string("export_dir", None, "If set, write a SavedModel here: "
                    "'serving_default' takes raw text and returns entity "
                    "spans; 'serving_ids' takes ids.")


def main(_):
  pipeline.run(FLAGS)


def run():
  """Console entry point: `bert-run-ner ...`, the same flags as `python run_ner.py ...`."""
  for name in ("data_dir", "vocab_file", "bert_config_file", "output_dir"):
    flags.mark_flag_as_required(name)
  cli.run(main)


if __name__ == "__main__":
  run()
