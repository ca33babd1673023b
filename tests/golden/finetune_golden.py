"""Golden: fine-tune with the original create_model + create_optimizer.

    python -m tests.golden.finetune_golden SPEC.json OUT.npz

SPEC: {"bert_config_file", "init_checkpoint", "train_file", "eval_file",
       "max_seq_length", "num_labels", "learning_rate", "num_train_steps",
       "num_warmup_steps", "train_batch_size", "eval_batch_size",
       "shuffle_seed", "global_seed"}

The original's model_fn for run_classifier.py (create_model, every variable
from init_checkpoint, AdamWeightDecayOptimizer with clipping) trained for
num_train_steps on train_file read as run_classifier's input_fn reads it
(repeat, shuffle buffer 100, batch, drop remainder), with the given seeds.
The config must have dropout 0, and create_model's fixed 10% dropout on
the pooled output is switched off here, so the run is deterministic.

OUT.npz: "v:<name>" for every variable after training (names with "/" as
"|"), "train_labels" ([steps, batch] label ids in the order consumed),
"losses" (loss before each update), "eval_loss" and "eval_accuracy" on
eval_file with the final weights (mean over examples).
"""

import json
import sys

import numpy as np

from tests.golden import original
from tests.golden.optimization_golden import _capture_learning_rate

tf = original.tf


def _dataset(path, seq_length, batch_size, training, seed):
  spec = {
      "input_ids": tf.FixedLenFeature([seq_length], tf.int64),
      "input_mask": tf.FixedLenFeature([seq_length], tf.int64),
      "segment_ids": tf.FixedLenFeature([seq_length], tf.int64),
      "label_ids": tf.FixedLenFeature([], tf.int64),
  }
  d = tf.data.TFRecordDataset(path)
  if training:
    d = d.repeat().shuffle(buffer_size=100, seed=seed)
  d = d.map(lambda r: {k: tf.cast(v, tf.int32) for k, v in
                       tf.parse_single_example(r, spec).items()})
  return d.batch(batch_size, drop_remainder=training)


def main(spec_path, out_path):
  with open(spec_path) as f:
    spec = json.load(f)
  rc = original.load("run_classifier")
  modeling = original.load("modeling")
  optimization = original.load("optimization")
  captured = _capture_learning_rate(optimization)
  # create_model hard-codes tf.nn.dropout(keep_prob=0.9) on the pooled
  # output; the encoder's dropout is off through the config (probability 0
  # makes the original skip tf.nn.dropout), so this only affects the head.
  tf.nn.dropout = lambda x, *args, **kwargs: x
  config = modeling.BertConfig.from_json_file(spec["bert_config_file"])
  seq = spec["max_seq_length"]
  out = {}
  with tf.Graph().as_default():
    tf.set_random_seed(spec["global_seed"])
    train_batches = tf.data.make_one_shot_iterator(_dataset(
        spec["train_file"], seq, spec["train_batch_size"], True,
        spec["shuffle_seed"])).get_next()
    eval_batches = tf.data.make_initializable_iterator(_dataset(
        spec["eval_file"], seq, spec["eval_batch_size"], False, None))
    placeholders = {k: tf.placeholder(tf.int32, [None, seq])
                    for k in ("input_ids", "input_mask", "segment_ids")}
    labels = tf.placeholder(tf.int32, [None])
    # is_training=True with dropout 0: the same graph serves evaluation.
    loss, per_example, logits, _ = rc.create_model(
        config, True, placeholders["input_ids"], placeholders["input_mask"],
        placeholders["segment_ids"], labels, spec["num_labels"], False)
    tvars = tf.trainable_variables()
    assignment, _ = modeling.get_assignment_map_from_checkpoint(
        tvars, spec["init_checkpoint"])
    if len(assignment) != len(tvars):
      raise ValueError("init_checkpoint lacks some variables")
    tf.train.init_from_checkpoint(spec["init_checkpoint"], assignment)
    optimization.create_optimizer(
        loss, spec["learning_rate"], spec["num_train_steps"],
        spec["num_warmup_steps"], False)
    # As in optimization_golden: run the update alone with global_step
    # pinned to step + 1 (the TF1 executor's usual order, deterministically).
    update_op = captured["apply_op"]
    global_step = tf.train.get_global_step()
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      losses, consumed = [], []
      for step in range(spec["num_train_steps"]):
        batch = sess.run(train_batches)
        feed = {placeholders[k]: batch[k] for k in placeholders}
        feed[labels] = batch["label_ids"]
        sess.run(global_step.assign(step + 1))
        losses.append(sess.run(loss, feed))
        sess.run(update_op, feed)
        consumed.append(batch["label_ids"])
      sess.run(eval_batches.initializer)
      next_eval = eval_batches.get_next()
      eval_losses, correct = [], []
      while True:
        try:
          batch = sess.run(next_eval)
        except tf.errors.OutOfRangeError:
          break
        feed = {placeholders[k]: batch[k] for k in placeholders}
        feed[labels] = batch["label_ids"]
        l, lg = sess.run([per_example, logits], feed)
        eval_losses.extend(l)
        correct.extend(np.argmax(lg, -1) == batch["label_ids"])
      for var in tf.global_variables():
        out["v:" + var.op.name.replace("/", "|")] = sess.run(var)
  out["train_labels"] = np.array(consumed)
  out["losses"] = np.array(losses, np.float32)
  out["eval_loss"] = np.array(np.mean(eval_losses))
  out["eval_accuracy"] = np.array(np.mean(correct))
  np.savez(out_path, **out)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
