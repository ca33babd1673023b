"""Fine-tuning through run_classifier's pipeline equals the original's.

From the same init checkpoint (encoder and output layer), on the same
records in the same order, with dropout 0 (in the config, and in the
classifier head, where both sides hard-code 10%), the original create_model +
create_optimizer (graph mode, golden subprocess) and our pipeline must end
with the same weights and Adam moments, and report the same eval loss and
accuracy. Real text (movie-review sentences shipped in data/) and the real
MiniLM word-piece vocabulary; 20 steps with warmup and decay at a learning
rate large enough to move every weight.
"""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier import features as features_lib
from bert_tf2 import runner
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2.classifier.model import BertClassifier
from tests.classifier import glue_fixtures
from tests.golden import REPO_ROOT
from tests.golden import run_golden

CONFIG = {"hidden_size": 24, "num_hidden_layers": 2,
          "num_attention_heads": 4, "intermediate_size": 40,
          "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
          "attention_probs_dropout_prob": 0.0, "max_position_embeddings": 40,
          "type_vocab_size": 2, "initializer_range": 0.05}
SEQ, BATCH, STEPS, LR, SEEDS = 32, 8, 20, 3e-3, (11, 5)


def _copy_rows(src, dst, start, count):
  with open(src, encoding="utf-8") as f:
    lines = f.read().splitlines()
  with open(dst, "w", encoding="utf-8") as f:
    f.write("\n".join([lines[0]] + lines[1 + start:1 + start + count]) + "\n")


@pytest.mark.golden
def test_finetuning_matches_original(tmp_path, monkeypatch):
  root = str(tmp_path)
  reviews = os.path.join(REPO_ROOT, "data", "movie_reviews")
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  # 28 train examples: batches straddle epochs through the shuffle buffer.
  _copy_rows(os.path.join(reviews, "train.tsv"),
             os.path.join(data_dir, "train.tsv"), 0, 28)
  _copy_rows(os.path.join(reviews, "dev.tsv"),
             os.path.join(data_dir, "dev.tsv"), 0, 21)
  vocab_file = glue_fixtures.minilm_vocab()
  with open(vocab_file, encoding="utf-8") as f:
    vocab_size = sum(1 for _ in f)
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(dict(CONFIG, vocab_size=vocab_size), f)

  class HeadWithoutDropout(modeling.ClassificationHead):

    def __init__(self, *args, **kwargs):
      kwargs["dropout_prob"] = 0.0
      super().__init__(*args, **kwargs)

  monkeypatch.setattr(modeling, "ClassificationHead", HeadWithoutDropout)

  # The init checkpoint holds the output layer too, so both sides start
  # from identical weights everywhere.
  keras.utils.set_random_seed(SEEDS[1])
  model = BertClassifier(modeling.BertConfig.from_json_file(config_file), 2)
  ids = tf.ones([1, SEQ], tf.int32)
  model({"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids})
  init_dir = os.path.join(root, "init")
  init_checkpoint = modeling.save_checkpoint(
      modeling.original_variable_names(model), init_dir, 0)

  # Our run: the real pipeline, its training shuffle given a fixed seed
  # (the script leaves it unseeded, as the original).
  # (The fine-tuning driver seeds its shuffles with runner.data_seed.)
  monkeypatch.setattr(runner, "data_seed", lambda unused_settings: SEEDS[0])
  output_dir = os.path.join(root, "out")
  options = default_options(
      task_name="tsv", data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, init_checkpoint=init_checkpoint,
      output_dir=output_dir, text_a_column="sentence", label_column="label",
      do_train=True, do_eval=True, max_seq_length=SEQ,
      train_batch_size=BATCH, eval_batch_size=BATCH, learning_rate=LR,
      num_train_epochs=5.72, warmup_proportion=0.1)  # int(3.5 * 5.72) = 20
  pipeline.run(options)
  final = os.path.join(output_dir, "model.ckpt-%d" % STEPS)
  assert os.path.exists(final + ".index"), os.listdir(output_dir)

  spec = {"bert_config_file": config_file, "init_checkpoint": init_checkpoint,
          "train_file": os.path.join(output_dir, "train.tf_record"),
          "eval_file": os.path.join(output_dir, "eval.tf_record"),
          "max_seq_length": SEQ, "num_labels": 2, "learning_rate": LR,
          "num_train_steps": STEPS, "num_warmup_steps": int(STEPS * 0.1),
          "train_batch_size": BATCH, "eval_batch_size": BATCH,
          "shuffle_seed": SEEDS[0], "global_seed": SEEDS[1]}
  spec_path = os.path.join(root, "spec.json")
  with open(spec_path, "w") as f:
    json.dump(spec, f)
  out_path = os.path.join(root, "golden.npz")
  run_golden("tests.golden.finetune_golden", spec_path, out_path)
  want = np.load(out_path)

  # The premise: our input pipeline fed the same batches in the same order.
  keras.utils.set_random_seed(SEEDS[1])
  ours = features_lib.file_based_input_fn_builder(
      spec["train_file"], SEQ, is_training=True, drop_remainder=True,
      seed=SEEDS[0])({"batch_size": BATCH})
  labels = [b["label_ids"].numpy() for b in ours.take(STEPS)]
  np.testing.assert_array_equal(np.array(labels), want["train_labels"])
  assert len(set(map(tuple, labels))) > 1

  reader = tf.train.load_checkpoint(final)
  names = [k[2:] for k in want.files if k.startswith("v:")]
  moved, model_vars = 0, 0
  for key in names:
    name = key.replace("|", "/")
    got = reader.get_tensor(name)
    expected = want["v:" + key]
    if name == "global_step":
      assert int(got) == int(expected) == STEPS
      continue
    # The attention key bias has a zero gradient in exact arithmetic (a
    # softmax ignores a constant shift): its values are round-off noise
    # (~1e-7 here), which --trim_padding (the default: shorter matmuls, so
    # other summation orders) reshuffles; compare them at a 1e-6 floor.
    floor = 5e-2 if name.endswith("key/bias") else 1e-2
    scale = max(float(np.abs(expected).max()), floor)
    np.testing.assert_allclose(got, expected, rtol=0,
                               atol=2e-5 * scale, err_msg=name)
    if not name.endswith(("adam_m", "adam_v", "key/bias")):
      model_vars += 1
      before = tf.train.load_checkpoint(init_checkpoint).get_tensor(name)
      moved += float(np.abs(expected - before).max()) > 1e-3
  # Every weight moved far more than the tolerance.
  assert moved == model_vars == len(
      modeling.original_variable_names(model)) - CONFIG["num_hidden_layers"]

  with open(os.path.join(output_dir, "eval_results.txt")) as f:
    results = dict(l.split(" = ") for l in f.read().splitlines())
  assert float(results["eval_loss"]) == pytest.approx(
      float(want["eval_loss"]), rel=1e-4)
  assert float(results["eval_accuracy"]) == pytest.approx(
      float(want["eval_accuracy"]), abs=1e-6)
