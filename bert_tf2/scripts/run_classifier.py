"""BERT fine-tuning for sentence (pair) classification: run_classifier.py.

Google's original command lines work unchanged, e.g.

  python run_classifier.py --task_name=MRPC --do_train=true --do_eval=true \\
    --data_dir=$GLUE_DIR/MRPC --vocab_file=$BERT_BASE_DIR/vocab.txt \\
    --bert_config_file=$BERT_BASE_DIR/bert_config.json \\
    --init_checkpoint=$BERT_BASE_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=32 --learning_rate=2e-5 --num_train_epochs=3.0 \\
    --output_dir=/tmp/mrpc_output/

Tasks: cola, mnli, mrpc, xnli (the original's), sst-2, qnli, qqp, rte,
wnli, sts-b (regression), mnli-mm, and tsv/csv for your own files (see
--text_a_column etc.). Beyond the original: --export_dir (SavedModel taking
raw strings or ids), --long_text=sliding_window, and the runner's flags
(precision, strategy, ...). See docs/classifier.md.
"""

from absl import flags

from bert_tf2.common import cli
from bert_tf2 import runner
import tokenization  # pylint: disable=unused-import  (--preserve_unused_tokens)
from bert_tf2.classifier import pipeline

FLAGS = flags.FLAGS

# The original's flags, names and defaults.
flags.DEFINE_string("data_dir", None, "The input data dir. Should contain "
                    "the .tsv files (or other data files) for the task.")
flags.DEFINE_string("bert_config_file", None, "The config json file of the "
                    "pre-trained BERT model (its architecture).")
flags.DEFINE_string("task_name", None, "The name of the task to train.")
flags.DEFINE_string("vocab_file", None, "The vocabulary file that the BERT "
                    "model was trained on.")
flags.DEFINE_string("output_dir", None, "The output directory where the "
                    "model checkpoints will be written.")
flags.DEFINE_string("init_checkpoint", None, "Initial checkpoint (usually "
                    "from a pre-trained BERT model).")
flags.DEFINE_bool("do_lower_case", True, "Lower-case the input: True for "
                  "uncased models, False for cased ones.")
flags.DEFINE_integer("max_seq_length", 128, "Maximum total input length in "
                     "word pieces; longer inputs are truncated, shorter "
                     "ones padded.")
flags.DEFINE_bool("do_train", False, "Whether to run training.")
flags.DEFINE_bool("do_eval", False, "Whether to run eval on the dev set.")
flags.DEFINE_bool("do_predict", False, "Whether to run the model in "
                  "inference mode on the test set.")
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
runner.define_flags()  # --use_tpu, --tpu_name, ... and the runner's new ones.

# Beyond the original.
flags.DEFINE_string("export_dir", None, "If set, write a SavedModel here "
                    "with signatures 'serving_default' (raw strings text_a, "
                    "text_b; tokenizer in the graph) and 'serving_ids'.")
flags.DEFINE_enum("long_text", "truncate", ["truncate", "sliding_window"],
                  "Inputs over max_seq_length: keep the first word pieces "
                  "(the original) or average logits over sliding windows.")
flags.DEFINE_bool("trim_padding", True, "Run each train/eval/predict batch "
                  "at its longest sequence (rounded up to a multiple of 16/"
                  "32/64) instead of --max_seq_length: same results, less "
                  "work. false: the original's fixed padding.")
flags.DEFINE_integer("doc_stride", 64, "With --long_text=sliding_window: "
                     "word pieces between the starts of two windows.")
# The generic tsv/csv tasks (--task_name=tsv|csv).
flags.DEFINE_string("text_a_column", "1", "tsv/csv: column of the text "
                    "(0-based index, or name from the header line).")
flags.DEFINE_string("text_b_column", None, "tsv/csv: column of the second "
                    "text of a pair task (index or name); unset: single.")
flags.DEFINE_string("label_column", "0", "tsv/csv: column of the label.")
flags.DEFINE_string("label_list", None, "tsv/csv: comma-separated labels in "
                    "output order; default: sorted labels of the train file.")
flags.DEFINE_bool("has_header", True, "tsv/csv: the first line of each file "
                  "is a header (skipped; gives column names).")
flags.DEFINE_string("delimiter", None, "tsv/csv: field delimiter (default "
                    "tab for tsv, comma for csv; 'tab'/'comma' accepted).")
flags.DEFINE_string("quotechar", None, "tsv/csv: quote character (default "
                    "none for tsv, '\"' for csv).")
flags.DEFINE_string("train_file", None, "tsv/csv: training file name in "
                    "--data_dir (default train.tsv / train.csv).")
flags.DEFINE_string("dev_file", None, "tsv/csv: dev file (dev.tsv/.csv).")
flags.DEFINE_string("test_file", None, "tsv/csv: test file (test.tsv/.csv).")


def main(_):
  pipeline.run(FLAGS)


def run():
  """Console entry point: `bert-run-classifier ...`, the same flags as `python run_classifier.py ...`."""
  for name in ("data_dir", "task_name", "vocab_file", "bert_config_file",
               "output_dir"):
    flags.mark_flag_as_required(name)
  cli.run(main)


if __name__ == "__main__":
  run()
