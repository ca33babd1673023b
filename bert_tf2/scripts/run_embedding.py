"""Fine-tuning a sentence-embedding bi-encoder: run_embedding.py.

  python run_embedding.py --data_dir=$PAIRS_DIR --do_train=true \\
    --do_eval=true --vocab_file=$MODEL_DIR/vocab.txt \\
    --bert_config_file=$MODEL_DIR/bert_config.json \\
    --init_checkpoint=$MODEL_DIR/bert_model.ckpt --max_seq_length=128 \\
    --train_batch_size=32 --learning_rate=2e-5 --num_train_epochs=1.0 \\
    --output_dir=/tmp/embedding_output/ --export_dir=/tmp/embedding_export

(anchor, positive[, negative]) pairs, in-batch negatives (the
multiple-negatives ranking loss), retrieval recall@1/@10 and MRR on the dev
pairs, a raw-string SavedModel of the encoder. See docs/embedding.md.
"""

from absl import flags

from bert_tf2 import finetune
from bert_tf2.common import cli
from bert_tf2.finetune import driver
from bert_tf2.embedding import flags as embedding_flags
from bert_tf2.embedding.job import EmbeddingJob

FLAGS = flags.FLAGS

embedding_flags.define_flags()


# Required unless a finished run in --output_dir records them.
REQUIRED = ("data_dir", "vocab_file", "bert_config_file")


def main(_):
  driver.run(EmbeddingJob(finetune.run_settings(FLAGS, REQUIRED)))


def run():
  """Console entry point: `bert-run-embedding ...`."""
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
