"""A two-worker multi-label run_classifier.py job equals one process.

Multi-label training runs on the fine-tuning driver: its shuffle uses the
data-order seed (every worker reads one order) and it honours
--trim_padding and --group_by_length. Two workers (global batch 4, 2 per
worker) end on the weights, Adam slots and global_step of one process with
batch 4, and write the same eval_results.txt and test_results.tsv.
"""

import os

import numpy as np
import pytest

import modeling
from bert_tf2.classifier.model import BertClassifier
from tests.reliability import fixtures
from tests.reliability.multi_worker_script_test import _eval_results
from tests.reliability.multi_worker_script_test import _task_checkpoint
from tests.reliability.multi_worker_script_test import _train_both
from tests import warm_python

WORDS = fixtures.WORDS[:8]


@pytest.mark.slow
def test_multi_label_two_workers_like_one_process(tmp_path):
  config = fixtures.write_json(tmp_path / "bert_config.json",
                               fixtures.config_dict(
                                   hidden_dropout_prob=0.0,
                                   attention_probs_dropout_prob=0.0))
  vocab = fixtures.write_text(tmp_path / "vocab.txt", "\n".join(
      fixtures.VOCAB) + "\n")
  data = tmp_path / "data"
  data.mkdir()
  rows = ["text\ttags"] + [
      "%s\t%s" % (" ".join(WORDS[(i + j) % 8] for j in range(2 + i % 5)),
                  "|".join(t for t, on in (("A", i % 2), ("B", i % 3 == 0))
                           if on)) for i in range(8)]
  for name in ("train", "dev", "test"):
    fixtures.write_text(data / (name + ".tsv"), "\n".join(rows) + "\n")
  init = _task_checkpoint(BertClassifier(
      modeling.BertConfig.from_json_file(config), 2),
                          tmp_path / "init" / "model.ckpt")

  def args(out):
    return fixtures.flag_args(
        task_name="tsv", data_dir=data, vocab_file=vocab,
        bert_config_file=config, init_checkpoint=init,
        output_dir=tmp_path / out, do_train="true", do_eval="true",
        do_predict="true", text_a_column="text", label_column="tags",
        multi_label_delimiter="|", label_list="A,B", max_seq_length=16,
        train_batch_size=4, eval_batch_size=2, predict_batch_size=2,
        num_train_epochs=2, learning_rate=1e-3, save_checkpoints_steps=100,
        classifier_dropout_prob=0, trim_padding="true",
        group_by_length="true")
  # 8 examples / batch 4 x 2 epochs = 4 steps.
  shared, single = _train_both(warm_python.command(), "run_classifier.py",
                               args, 4)
  got = _eval_results(os.path.join(shared, "eval_results.txt"))
  want = _eval_results(os.path.join(single, "eval_results.txt"))
  assert got["global_step"] == want["global_step"] == "4"
  for key in ("eval_loss", "eval_micro_f1"):
    np.testing.assert_allclose(float(got[key]), float(want[key]), rtol=1e-4)
  got = np.loadtxt(os.path.join(shared, "test_results.tsv"))
  want = np.loadtxt(os.path.join(single, "test_results.tsv"))
  assert got.shape == want.shape == (8, 2)
  np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
