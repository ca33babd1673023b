"""Golden reference for pretraining: Google's original code, graph mode.

Runs the original `run_pretraining.py` pieces (its input_fn_builder,
get_masked_lm_output, get_next_sentence_output, the original
`optimization.create_optimizer`) under tf.compat.v1 sessions, and computes
the evaluation numbers the way its `metric_fn` and TPUEstimator do
(tf.metrics.accuracy / tf.metrics.mean accumulated over `steps` batches;
"loss" is the mean of the per-batch total loss).

Usage (a subprocess of the tests, see tests/golden/__init__.py):
  python -m tests.golden.pretraining_golden train_eval CONFIG RECORDS \
      CKPT_DIR OUT_JSON MAX_SEQ MAX_PRED BATCH TRAIN_STEPS EVAL_STEPS
    -> trains TRAIN_STEPS steps from a seeded random init with the original
       optimizer, saves CKPT_DIR/model.ckpt-TRAIN_STEPS (original format,
       with global_step and adam_m/adam_v), writes its eval metrics.
  python -m tests.golden.pretraining_golden eval CONFIG RECORDS CKPT \
      OUT_JSON MAX_SEQ MAX_PRED BATCH EVAL_STEPS
    -> restores every variable of the original graph from CKPT (fails if
       one is missing or has another shape) and writes the eval metrics.
"""

import json
import sys

from tests.golden import original

tf = original.tf
modeling = original.load("modeling")
optimization = original.load("optimization")
run_pretraining = original.load("run_pretraining")


def _features(records, max_seq, max_pred, batch):
  input_fn = run_pretraining.input_fn_builder(
      input_files=records.split(","), max_seq_length=max_seq,
      max_predictions_per_seq=max_pred, is_training=False)
  dataset = input_fn({"batch_size": batch})
  return tf.data.make_one_shot_iterator(dataset).get_next()


def _model(config, features, is_training):
  """The original model_fn's graph: returns (total_loss, metric inputs)."""
  model = modeling.BertModel(
      config=config, is_training=is_training,
      input_ids=features["input_ids"], input_mask=features["input_mask"],
      token_type_ids=features["segment_ids"], use_one_hot_embeddings=False)
  mlm_loss, mlm_example_loss, mlm_log_probs = (
      run_pretraining.get_masked_lm_output(
          config, model.get_sequence_output(), model.get_embedding_table(),
          features["masked_lm_positions"], features["masked_lm_ids"],
          features["masked_lm_weights"]))
  nsp_loss, nsp_example_loss, nsp_log_probs = (
      run_pretraining.get_next_sentence_output(
          config, model.get_pooled_output(),
          features["next_sentence_labels"]))
  total_loss = mlm_loss + nsp_loss
  return total_loss, (mlm_example_loss, mlm_log_probs,
                      features["masked_lm_ids"],
                      features["masked_lm_weights"], nsp_example_loss,
                      nsp_log_probs, features["next_sentence_labels"])


def _metrics(total_loss, inputs):
  """The original metric_fn (same tf.metrics calls) plus the loss mean."""
  (mlm_example_loss, mlm_log_probs, mlm_ids, mlm_weights, nsp_example_loss,
   nsp_log_probs, nsp_labels) = inputs
  mlm_log_probs = tf.reshape(mlm_log_probs, [-1, mlm_log_probs.shape[-1]])
  mlm_predictions = tf.argmax(mlm_log_probs, axis=-1, output_type=tf.int32)
  mlm_weights = tf.reshape(mlm_weights, [-1])
  nsp_log_probs = tf.reshape(nsp_log_probs, [-1, nsp_log_probs.shape[-1]])
  nsp_predictions = tf.argmax(nsp_log_probs, axis=-1, output_type=tf.int32)
  return {
      "masked_lm_accuracy": tf.metrics.accuracy(
          labels=tf.reshape(mlm_ids, [-1]), predictions=mlm_predictions,
          weights=mlm_weights),
      "masked_lm_loss": tf.metrics.mean(
          values=tf.reshape(mlm_example_loss, [-1]), weights=mlm_weights),
      "next_sentence_accuracy": tf.metrics.accuracy(
          labels=tf.reshape(nsp_labels, [-1]), predictions=nsp_predictions),
      "next_sentence_loss": tf.metrics.mean(values=nsp_example_loss),
      "loss": tf.metrics.mean(total_loss),
  }


def evaluate(config, records, ckpt, max_seq, max_pred, batch, steps):
  """Returns {metric: float} of the original eval on `ckpt`."""
  with tf.Graph().as_default():
    features = _features(records, max_seq, max_pred, batch)
    total_loss, inputs = _model(config, features, is_training=False)
    metrics = _metrics(total_loss, inputs)
    model_vars = tf.global_variables()
    saver = tf.train.Saver(var_list=model_vars)
    with tf.Session() as sess:
      sess.run(tf.local_variables_initializer())
      saver.restore(sess, ckpt)
      for _ in range(steps):
        sess.run([update for _, update in metrics.values()])
      results = sess.run({k: value for k, (value, _) in metrics.items()})
  results = {k: float(v) for k, v in results.items()}
  reader = tf.train.load_checkpoint(ckpt)
  if reader.has_tensor("global_step"):
    results["global_step"] = int(reader.get_tensor("global_step"))
  results["restored_variables"] = sorted(v.op.name for v in model_vars)
  return results


def train(config, records, ckpt_dir, max_seq, max_pred, batch, steps):
  """Trains `steps` steps with the original optimizer; returns ckpt path."""
  with tf.Graph().as_default():
    tf.set_random_seed(1234)
    features = _features(records, max_seq, max_pred, batch)
    total_loss, _ = _model(config, features, is_training=True)
    train_op = optimization.create_optimizer(
        total_loss, 1e-3, num_train_steps=100, num_warmup_steps=1,
        use_tpu=False)
    saver = tf.train.Saver()
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      for _ in range(steps):
        sess.run(train_op)
      return saver.save(sess, ckpt_dir + "/model.ckpt",
                        global_step=tf.train.get_global_step())


def main(argv):
  mode = argv[1]
  config = modeling.BertConfig.from_json_file(argv[2])
  records = argv[3]
  if mode == "train_eval":
    ckpt_dir, out, max_seq, max_pred, batch, train_steps, eval_steps = argv[4:]
    ckpt = train(config, records, ckpt_dir, int(max_seq), int(max_pred),
                 int(batch), int(train_steps))
    results = evaluate(config, records, ckpt, int(max_seq), int(max_pred),
                       int(batch), int(eval_steps))
    results["checkpoint"] = ckpt
  elif mode == "eval":
    ckpt, out, max_seq, max_pred, batch, eval_steps = argv[4:]
    results = evaluate(config, records, ckpt, int(max_seq), int(max_pred),
                       int(batch), int(eval_steps))
  else:
    raise ValueError("unknown mode %r" % mode)
  with open(out, "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
  main(sys.argv)
