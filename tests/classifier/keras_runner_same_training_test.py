"""Raw-string Keras `fit` and run_classifier's training are one computation.

From the same weights (head included), on the same batches in the same
order, with dropout off (the one source of randomness left), a
`text_model(BertClassifier, ...)` fitted on strings with run_classifier's
optimizer (`optimization.create_optimizer`: AdamW, warm-up, decay, global
norm clipping) and the runner's Estimator with run_classifier's
`ClassifierTask` end with the same weights. So accuracy differences between
the two paths at equal settings are those of their random draws (data
order, dropout masks, head initialisation): docs/keras.md measures them
over seeds.
"""

import json
import os

import keras
import numpy as np
import tensorflow as tf

import modeling
import optimization
from bert_tf2 import runner
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.models import text_model
from bert_tf2.runner.task import ModelTask
from tests.common import tiny_dir

TEXTS = ["bob met ann in paris", "the cat sat on a mat", "a dog ran",
         "angela merkel visited paris", "the dogs ran on the mat",
         "ann met the cat", "bob sat", "a cat ran in paris",
         "merkel met bob", "the mat", "dogs sat on a cat", "ann ran"] * 2
LABELS = [0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0] * 2
BATCH, SEQ = 4, 12
STEPS = len(TEXTS) // BATCH


def _optimizer():
  return optimization.create_optimizer(5e-3, num_train_steps=STEPS,
                                       num_warmup_steps=2)


def _no_dropout_dir(directory):
  tiny_dir.write(directory)
  path = os.path.join(directory, "bert_config.json")
  with open(path) as f:
    config = json.load(f)
  config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
  with open(path, "w") as f:
    json.dump(config, f)
  return directory


def test_raw_string_fit_and_the_runner_train_to_the_same_weights(tmp_path):
  directory = _no_dropout_dir(str(tmp_path / "ckpt"))
  keras.utils.set_random_seed(0)
  model = text_model(BertClassifier, directory, num_labels=2,
                     max_seq_length=SEQ, classifier_dropout_prob=0.0)
  start = str(tmp_path / "start" / "model.ckpt")  # Encoder and head.
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in
       modeling.original_variable_names(model.task).items()}, start)
  features = {k: v.numpy() for k, v in
              model.preprocessor(tf.constant(TEXTS)).items()}
  features["label_ids"] = np.array(LABELS, np.int32)

  model.compile(optimizer=_optimizer())
  model.fit(TEXTS, np.array(LABELS, np.int32), batch_size=BATCH,
            shuffle=False, epochs=1, verbose=0)

  config = modeling.BertConfig.from_json_file(
      os.path.join(directory, "bert_config.json"))
  estimator = runner.Estimator(
      ModelTask(lambda: BertClassifier(config, 2, classifier_dropout_prob=0.0)),
      runner.RunConfig(str(tmp_path / "run"), save_checkpoints_steps=STEPS,
                       iterations_per_loop=STEPS),
      optimizer_fn=_optimizer, init_checkpoint=start, train_batch_size=BATCH)
  estimator.train(lambda params: tf.data.Dataset.from_tensor_slices(
      features).batch(params["batch_size"], drop_remainder=True), STEPS)

  keras_weights = modeling.original_variable_names(model.task)
  runner_weights = modeling.original_variable_names(estimator.model)
  assert sorted(keras_weights) == sorted(runner_weights)
  moved = 0.0
  for name, variable in keras_weights.items():
    initial = tf.train.load_variable(start, name)
    change = float(np.abs(variable.numpy() - initial).max())
    moved = max(moved, change)
    # Round-off only: 1e-3 of the variable's own change in training (Adam
    # divides small gradients by small second moments, and the two graphs
    # round differently).
    np.testing.assert_allclose(variable.numpy(),
                               runner_weights[name].numpy(), rtol=0,
                               atol=1e-3 * change + 1e-9, err_msg=name)
  assert moved > 1e-3  # Both trained (the same way).
