"""Golden: Google's optimization.py (compat.v1) on a small fixed problem.

    python -m tests.golden.optimization_golden IN.npz OUT.npz CKPT_DIR

IN.npz: "scenarios" (names) and, per scenario S, "S:init_lr",
"S:num_train_steps", "S:num_warmup_steps", "S:steps", "S:loss_scale";
"lr:configs" ([init_lr, num_train_steps, num_warmup_steps] rows) and
"lr:steps". The problem (weights, batch, loss) is
tests/golden/optimization_problem.py.

OUT.npz, per scenario: "S:losses" (loss before each update), "S:lr" (the
learning rate each update used: that of global_step + 1, see run_scenario), "S:global_step", and "S:v:<name>" for every
variable after training (names with "/" as "|"), including the optimizer's
"<name>/adam_m" and "/adam_v". "lr:J": the original learning rate at each
of "lr:steps" for config J. The last scenario is also saved with
tf.train.Saver to CKPT_DIR/model.ckpt-STEP.
"""

import sys

import numpy as np

from tests.golden import original
from tests.golden import optimization_problem as problem

tf = original.tf


def _capture_learning_rate(optimization):
  """Makes create_optimizer record its learning rate and update op."""
  captured = {}
  cls = optimization.AdamWeightDecayOptimizer
  init = cls.__init__
  apply_gradients = cls.apply_gradients

  def patched_init(self, learning_rate, *args, **kwargs):
    captured["lr"] = learning_rate
    init(self, learning_rate, *args, **kwargs)

  def patched_apply(self, *args, **kwargs):
    captured["apply_op"] = apply_gradients(self, *args, **kwargs)
    return captured["apply_op"]
  cls.__init__ = patched_init
  cls.apply_gradients = patched_apply
  return captured


def run_scenario(optimization, captured, inputs, name, ckpt_dir=None):
  init_lr = float(inputs[name + ":init_lr"])
  num_train = int(inputs[name + ":num_train_steps"])
  num_warmup = int(inputs[name + ":num_warmup_steps"])
  steps = int(inputs[name + ":steps"])
  loss_scale = float(inputs[name + ":loss_scale"])
  x_value, y_value = problem.batch()
  out = {}
  with tf.Graph().as_default():
    weights = {n: tf.get_variable(n, initializer=tf.constant(v))
               for n, v in problem.initial_weights().items()}
    loss = problem.loss_fn(tf, weights, tf.constant(x_value),
                           tf.constant(y_value)) * loss_scale
    optimization.create_optimizer(loss, init_lr, num_train, num_warmup, False)
    lr = captured["lr"]
    # The original's train op groups the update with global_step += 1
    # without ordering them; the TF1 executor almost always runs the
    # increment first, so the update reads the rate of step + 1 (a race:
    # see optimization/factory.py). We run the update op alone with
    # global_step pinned to step + 1: the same maths, deterministically.
    update_op = captured["apply_op"]
    global_step = tf.train.get_global_step()
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      losses, rates = [], []
      for step in range(steps):
        sess.run(global_step.assign(step + 1))
        value, rate = sess.run([loss, lr])
        sess.run(update_op)
        losses.append(value)
        rates.append(rate)
      out[name + ":losses"] = np.array(losses, np.float32)
      out[name + ":lr"] = np.array(rates, np.float32)
      out[name + ":global_step"] = np.array(sess.run(global_step))
      for var in tf.global_variables():
        key = name + ":v:" + var.op.name.replace("/", "|")
        out[key] = sess.run(var)
      if ckpt_dir:
        tf.train.Saver().save(sess, ckpt_dir + "/model.ckpt",
                              global_step=global_step)
  return out


def lr_schedule(optimization, captured, init_lr, num_train, num_warmup,
                steps):
  with tf.Graph().as_default():
    w = tf.get_variable("w", initializer=tf.constant([1.0]))
    optimization.create_optimizer(tf.reduce_sum(w * w), init_lr, num_train,
                                  num_warmup, False)
    lr = captured["lr"]
    global_step = tf.train.get_global_step()
    rates = []
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      for step in steps:
        sess.run(global_step.assign(int(step)))
        rates.append(sess.run(lr))
  return np.array(rates, np.float32)


def main(argv):
  in_path, out_path, ckpt_dir = argv[1], argv[2], argv[3]
  optimization = original.load("optimization")
  captured = _capture_learning_rate(optimization)
  inputs = np.load(in_path)
  scenarios = [str(s) for s in inputs["scenarios"]]
  out = {}
  for i, name in enumerate(scenarios):
    last = i == len(scenarios) - 1
    out.update(run_scenario(optimization, captured, inputs, name,
                            ckpt_dir if last else None))
  for j, (init_lr, num_train, num_warmup) in enumerate(inputs["lr:configs"]):
    out["lr:%d" % j] = lr_schedule(optimization, captured, float(init_lr),
                                   int(num_train), int(num_warmup),
                                   inputs["lr:steps"])
  np.savez(out_path, **out)


if __name__ == "__main__":
  main(sys.argv)
