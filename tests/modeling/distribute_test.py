"""BertModel and heads under tf.distribute.MirroredStrategy (2 CPU devices).

Two logical CPU devices must be configured before TensorFlow initialises its
devices, which other tests in the same pytest worker may already have done,
so the check runs in a fresh subprocess (`python -m
tests.modeling.distribute_test OUT_DIR`).
"""

import os
import subprocess
import sys

import numpy as np
import tensorflow as tf

import modeling
from tests.modeling import helpers

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_mirrored_strategy_in_subprocess(tmp_path):
  proc = subprocess.run(
      [sys.executable, "-m", "tests.modeling.distribute_test", str(tmp_path)],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, check=False)
  assert proc.returncode == 0, proc.stderr[-4000:]
  assert "MIRRORED OK 2" in proc.stdout


def _strategy():
  cpus = tf.config.list_physical_devices("CPU")
  tf.config.set_logical_device_configuration(
      cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
  devices = [d.name for d in tf.config.list_logical_devices("CPU")]
  return tf.distribute.MirroredStrategy(devices[:2])


def mirrored_check(tmp_path):
  """Forward pass, a train step with dropout, and checkpoint I/O."""
  strategy = _strategy()
  assert strategy.num_replicas_in_sync == 2
  config = helpers.tiny_config()
  features = helpers.model_features(helpers.random_features(config,
                                                            batch_size=4))
  with strategy.scope():
    model = helpers.FullModel(config)
  reference = helpers.FullModel(config)
  reference.set_weights(model.get_weights())

  dataset = tf.data.Dataset.from_tensors(features).unbatch().batch(4)
  dist = strategy.experimental_distribute_dataset(dataset)
  batch = next(iter(dist))

  @tf.function(jit_compile=False)
  def forward(f):
    def step(f):
      return model(f, training=False)["pooled_output"]
    return strategy.gather(strategy.run(step, args=(f,)), axis=0)

  np.testing.assert_allclose(forward(batch),
                             reference(features)["pooled_output"], atol=1e-5)

  @tf.function
  def train_step(f):
    def step(f):
      with tf.GradientTape() as tape:
        out = model(f, training=True)
        loss = out["mlm_loss"] + out["nsp_loss"]
      grads = tape.gradient(loss, model.trainable_variables)
      for var, grad in zip(model.trainable_variables, grads):
        if grad is not None:
          ctx = tf.distribute.get_replica_context()
          grad = ctx.all_reduce("mean", grad)
          var.assign_sub(0.1 * tf.convert_to_tensor(grad))
      return loss
    return strategy.reduce("mean", strategy.run(step, args=(f,)), axis=None)

  before = model.bert.pooler.kernel.numpy().copy()
  loss = train_step(batch)
  assert np.isfinite(loss.numpy())
  assert np.abs(model.bert.pooler.kernel.numpy() - before).max() > 0

  # Checkpoint I/O works on distributed variables.
  names = modeling.original_variable_names(model)
  prefix = modeling.save_checkpoint(names, str(tmp_path), 1)
  reloaded = helpers.FullModel(config)
  modeling.init_from_checkpoint(reloaded, prefix)
  np.testing.assert_array_equal(reloaded.bert.pooler.kernel.numpy(),
                                model.bert.pooler.kernel.numpy())
  print("MIRRORED OK", strategy.num_replicas_in_sync)


if __name__ == "__main__":
  mirrored_check(sys.argv[1])
